"""Sweeps from Python: ofdmsim.run(config, ...) -> DataFrame."""
import ctypes
import os
import sys

from . import _lib
from .config import Config
from .errors import Interrupted, raise_for
from .results import frame_from_handle


class _Bar:
    """tqdm's bar over the points when tqdm is there and wanted, else nothing."""

    def __init__(self, total, enabled):
        self.bar = None
        if not enabled:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, unit="point", desc="ofdmsim", leave=True)

    def update(self, p):
        if self.bar is None:
            return
        if p.points_done > self.bar.n:
            self.bar.update(p.points_done - self.bar.n)
        ber = p.bit_errors / p.bits if p.bits else 0.0
        self.bar.set_postfix_str(f"point {p.point + 1}/{p.points} bits {p.bits:.3g} ber {ber:.3g}", refresh=False)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def run(config, overrides=None, backend=None, output=None, resume=False, force=False, progress=True,
        llr_out=None, llr_frames=1, on_progress=None):
    """Runs the sweep of `config` (a path or config text) with `overrides`
    ({"mimo.tx": 4, "modulation": "16qam"} or ["mimo.tx=4"], as --set) and
    returns a pandas DataFrame: one row per point, the CSV's columns with
    their types, the effective config in df.attrs["config"].

    backend: "auto", "cpu" or "cuda" (None: the config's simulation.backend).
    output: a results CSV path: the CSV, its JSON sidecar and its journal are
    written as `ofdmsim CONFIG -o output` writes them (never replaced unless
    force=True; resume=True continues them). progress: a tqdm bar when tqdm
    is installed. on_progress(p): called after every batch with the point,
    points_done, frames, bits, bit_errors; returning True cancels.

    Errors raise ConfigError / RuntimeFailure with the command line's
    message. Ctrl-C (KeyboardInterrupt) stops the run between batches and
    raises ofdmsim.Interrupted (a KeyboardInterrupt) whose .results holds
    the finished points (the files of `output` keep them too).
    """
    extra = [] if backend is None else [f"simulation.backend={backend}"]
    if isinstance(config, Config) and not extra and not overrides:
        cfg = config
    else:
        cfg = Config(config, _merged(config, overrides, extra))
    bar = _Bar(cfg.points, progress)
    stop = []

    def callback(_ctx, p):
        try:
            bar.update(p.contents)
            if on_progress is not None and on_progress(p.contents):
                stop.append(None)
                return 1
            return 0
        except BaseException as e:  # KeyboardInterrupt above all: stop, keep what was computed
            stop.append(e)
            return 1

    fn = _lib.PROGRESS_FN(callback)
    o = _lib.RunOptions()
    o.output = os.fspath(output).encode() if output is not None else None
    o.force, o.resume, o.quiet, o.library = int(force), int(resume), 1, 1
    o.llr_out = os.fspath(llr_out).encode() if llr_out is not None else None
    o.llr_frames = llr_frames
    o.command_line = ("python: " + " ".join(sys.argv)).encode()
    o.progress = fn
    h = ctypes.c_void_p()
    try:
        rc = _lib.lib.ofdmsim_run(cfg.handle, ctypes.byref(o), ctypes.byref(h))
    finally:
        bar.close()
    message = _lib.last_error()
    df = None
    if h:
        try:
            df = frame_from_handle(h)
        finally:
            _lib.lib.ofdmsim_results_free(h)
        df.attrs["config"] = cfg.echo()
        df.attrs["overrides"] = list(cfg.overrides)
        if output is not None:
            df.attrs["path"] = os.fspath(output)
    if rc == _lib.CANCELLED:
        why = stop[0] if stop else None
        if why is not None and not isinstance(why, KeyboardInterrupt):
            raise why
        if why is None and on_progress is not None:
            return df  # the caller's own callback asked to stop: what was computed
        raise Interrupted(message, df)
    if rc:
        raise_for(rc, message)
    return df


def _merged(config, overrides, extra):
    """A Config's own overrides, then these, then the backend's."""
    from .config import override_strings
    own = list(config.overrides) if isinstance(config, Config) else []
    return own + override_strings(overrides) + extra
