"""The link batch by batch: ofdmsim.Link(config, backend=...).batch(frames)."""
import ctypes
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from . import _lib
from .config import Config, override_strings
from .dlpack import DeviceArray, DeviceBuffer
from .errors import raise_for


@dataclass
class Batch:
    """One batch of frames frame_offset .. frame_offset + frames - 1 of the point.

    bits, llr     (frames, data REs, tx, bps): transmitted bits (uint8) and
                  their LLRs ln P(b=1)/P(b=0) (float32; positive: 1)
    bit_errors    (frames, tx) uint32: the receiver's errors as the run counts them (host)
    channels      (rx, tx, frames, symbols, subcarriers) complex64, or None
    symbols       (tx, frames, symbols, subcarriers) complex64 equalised symbols, or None
    On a GPU link the arrays other than bit_errors are DeviceArray (DLPack:
    torch.from_dlpack, cupy.from_dlpack); on the CPU, NumPy arrays.
    """
    frame_offset: int
    frames: int
    bits: Any
    llr: Any
    bit_errors: np.ndarray
    channels: Optional[Any] = None
    symbols: Optional[Any] = None


class Link:
    """Point `point` of a config's sweep as a source of batches on `backend`
    ("auto", "cpu", "cuda"; None: the config's). max_frames bounds a batch;
    channels=True also keeps each batch's channels and equalised symbols (the
    staged path: slower). The frames are the run's own: batch offset 0 is the
    first frame the run counts for this point, with the same bits, channels
    and noise."""

    def __init__(self, config, overrides=None, point=0, backend=None, max_frames=64, channels=False):
        own = list(config.overrides) if isinstance(config, Config) else []
        self.config = Config(config.source if isinstance(config, Config) else config,
                             own + override_strings(overrides))
        self._h, self._outstanding, self._closed = None, 0, False
        h = ctypes.c_void_p()
        rc = _lib.lib.ofdmsim_link_create(ctypes.byref(h), self.config.handle, point,
                                          backend.encode() if backend else None, max_frames,
                                          _lib.LINK_CHANNELS if channels else 0)
        if rc:
            raise_for(rc, _lib.last_error())
        self._h = h
        self._pool = {}  # nbytes -> free device allocations
        self.point, self.channels, self.next_offset = point, channels, 0
        info = _lib.LinkInfo()
        _lib.lib.ofdmsim_link_get_info(h, ctypes.byref(info))
        self.info = info
        self.backend = info.backend.decode()
        self.on_device = bool(info.device)
        self.tx, self.rx, self.bps = info.tx, info.rx, info.bps
        self.symbols_per_frame, self.subcarriers = info.symbols, info.subcarriers
        self.data_res_per_frame = info.data_res_per_frame
        self.max_frames = info.max_frames
        self.soft = bool(info.soft)
        self.snr_db, self.n0, self.point_key = info.snr_db, info.n0, info.point_key

    # Device memory, reused: a batch's buffers go back to the pool when no
    # tensor uses them; a closed link frees its memory and itself once the
    # last tensor of its batches is gone.
    def _device_take(self, nbytes):
        free = self._pool.get(nbytes)
        p = free.pop() if free else _lib.lib.ofdmsim_link_device_alloc(self._h, nbytes)
        if not p:
            raise_for(_lib.ERR_RUNTIME, _lib.last_error())
        self._outstanding += 1
        return p

    def _device_give(self, ptr, nbytes):
        self._pool.setdefault(nbytes, []).append(ptr)
        self._outstanding -= 1
        if self._closed and self._outstanding == 0:
            self._free()

    def _array(self, shape, dtype):
        if not self.on_device:
            return np.empty(shape, dtype=dtype)
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        return DeviceArray(DeviceBuffer(self, nbytes), shape, np.dtype(dtype).name)

    @staticmethod
    def _ptr(a):
        if a is None:
            return None
        return a.ptr if isinstance(a, DeviceArray) else a.ctypes.data

    def batch(self, frames=None, offset=None, llr=True, bits=True):
        """The next `frames` frames (default max_frames), or those from `offset` on."""
        frames = int(frames or self.max_frames)
        off = self.next_offset if offset is None else int(offset)
        d, tx, bps = self.data_res_per_frame, self.tx, self.bps
        soft_shape = (frames, d, tx, bps)
        out_llr = self._array(soft_shape, np.float32) if llr and self.soft else None
        out_bits = self._array(soft_shape, np.uint8) if bits and self.soft else None
        errors = np.empty((frames, tx), dtype=np.uint32)
        s, k = self.symbols_per_frame, self.subcarriers
        chans = self._array((self.rx, tx, frames, s, k), np.complex64) if self.channels else None
        syms = self._array((tx, frames, s, k), np.complex64) if self.channels else None
        b = _lib.Batch(self._ptr(out_bits), self._ptr(out_llr), errors.ctypes.data, self._ptr(chans),
                       self._ptr(syms))
        rc = _lib.lib.ofdmsim_link_batch(self._h, off, frames, ctypes.byref(b))
        if rc:
            raise_for(rc, _lib.last_error())
        self.next_offset = off + frames
        return Batch(off, frames, out_bits, out_llr, errors, chans, syms)

    def close(self):
        """Frees the link (at once, or when the last tensor of its batches is gone)."""
        self._closed = True
        if getattr(self, "_outstanding", 0) == 0:
            self._free()

    def _free(self):
        if getattr(self, "_h", None):
            h, self._h = self._h, None
            for ptrs in self._pool.values():
                for p in ptrs:
                    _lib.lib.ofdmsim_link_device_free(h, p)
            self._pool = {}
            _lib.lib.ofdmsim_link_free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
