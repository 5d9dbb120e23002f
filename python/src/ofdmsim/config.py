"""Configs: a file or config text, with --set style overrides."""
import ctypes
import json
import os

from . import _lib
from .errors import raise_for


def _value(v):
    """A Python value in libconfig syntax (what --set takes after KEY=)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + " ".join(f"{k} = {_value(x)};" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        if v and all(isinstance(x, (list, tuple)) for x in v):
            return "(" + ", ".join(_value(x) for x in v) + ")"
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if hasattr(v, "item"):  # a NumPy scalar
        return _value(v.item())
    raise TypeError(f"override value {v!r}: expected a number, string, bool, list or dict")


def override_strings(overrides):
    """{"mimo.tx": 4} or ["mimo.tx=4"] -> ["mimo.tx=4"]."""
    if not overrides:
        return []
    if isinstance(overrides, dict):
        return [f"{k}={_value(v)}" for k, v in overrides.items()]
    return [str(s) for s in overrides]


def _is_text(config):
    if isinstance(config, os.PathLike):
        return False
    return "\n" in config or ("=" in config and not os.path.exists(config))


class Config:
    """A loaded config: `config` is a path or config text (anything with a
    newline or an `=` that names no file)."""

    def __init__(self, config, overrides=None):
        if isinstance(config, Config):
            config = config.source
        self.source = config
        self.overrides = override_strings(overrides)
        arr = _lib.strings(self.overrides)
        handle = ctypes.c_void_p()
        if _is_text(str(config) if not isinstance(config, os.PathLike) else config):
            rc = _lib.lib.ofdmsim_config_parse(ctypes.byref(handle), str(config).encode(), arr, len(self.overrides))
        else:
            rc = _lib.lib.ofdmsim_config_load(ctypes.byref(handle), os.fspath(config).encode(), arr,
                                             len(self.overrides))
        if rc:
            raise_for(rc, _lib.last_error())
        self._h = handle

    @property
    def handle(self):
        return self._h

    @property
    def points(self):
        return _lib.lib.ofdmsim_config_points(self._h)

    def echo(self):
        """The effective config (file, overrides, defaults) as libconfig text."""
        p = _lib.lib.ofdmsim_config_echo(self._h)
        try:
            return ctypes.string_at(p).decode() if p else ""
        finally:
            _lib.lib.ofdmsim_free(p)

    def close(self):
        if getattr(self, "_h", None):
            _lib.lib.ofdmsim_config_free(self._h)
            self._h = None

    def __del__(self):
        self.close()
