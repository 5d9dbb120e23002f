"""The ctypes binding of libofdmsim (the C library's one header, api/ofdmsim.h).

The library is found, in this order, at $OFDMSIM_LIBRARY, beside this file
(where `pip install` puts the one it built), or by the system's loader.
"""
import ctypes
import ctypes.util
import os
from pathlib import Path

API_VERSION = 1

OK, ERR_RUNTIME, ERR_CONFIG, CANCELLED, TERMINATED = 0, 1, 2, 130, 143
INT, REAL, TEXT = 0, 1, 2
LINK_CHANNELS = 1


class Progress(ctypes.Structure):
    _fields_ = [("point", ctypes.c_size_t), ("points", ctypes.c_size_t), ("points_done", ctypes.c_size_t),
                ("frames", ctypes.c_uint64), ("bits", ctypes.c_uint64), ("bit_errors", ctypes.c_uint64),
                ("seconds", ctypes.c_double)]


PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(Progress))


class RunOptions(ctypes.Structure):
    _fields_ = [("output", ctypes.c_char_p), ("force", ctypes.c_int), ("resume", ctypes.c_int),
                ("backend", ctypes.c_char_p), ("table", ctypes.c_int), ("quiet", ctypes.c_int),
                ("progress_seconds", ctypes.c_double), ("llr_out", ctypes.c_char_p),
                ("llr_frames", ctypes.c_uint64), ("command_line", ctypes.c_char_p), ("progress", PROGRESS_FN),
                ("progress_ctx", ctypes.c_void_p), ("library", ctypes.c_int)]


class LinkInfo(ctypes.Structure):
    _fields_ = [("tx", ctypes.c_int), ("rx", ctypes.c_int), ("bps", ctypes.c_int), ("symbols", ctypes.c_int),
                ("subcarriers", ctypes.c_int), ("res_per_frame", ctypes.c_uint64),
                ("data_res_per_frame", ctypes.c_uint64), ("first_frame", ctypes.c_uint64),
                ("max_frames", ctypes.c_uint64), ("point_key", ctypes.c_uint64), ("snr_db", ctypes.c_double),
                ("n0", ctypes.c_double), ("soft", ctypes.c_int), ("device", ctypes.c_int),
                ("backend", ctypes.c_char * 16)]


class Batch(ctypes.Structure):
    _fields_ = [("bits", ctypes.c_void_p), ("llr", ctypes.c_void_p), ("bit_errors", ctypes.c_void_p),
                ("channels", ctypes.c_void_p), ("symbols", ctypes.c_void_p)]


def _find():
    env = os.environ.get("OFDMSIM_LIBRARY")
    if env:
        return env
    here = Path(__file__).resolve().parent
    for name in ("libofdmsim.so", "libofdmsim.dylib"):
        if (here / name).exists():
            return str(here / name)
    found = ctypes.util.find_library("ofdmsim")
    if found:
        return found
    raise ImportError("libofdmsim not found: install the package with `pip install ./python` from the "
                      "repository, or set OFDMSIM_LIBRARY to a built libofdmsim.so")


def _bind(lib):
    P, S, I, C = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_char_p
    sig = {
        "ofdmsim_api_version": (I, []),
        "ofdmsim_version": (C, []),
        "ofdmsim_last_error": (C, []),
        "ofdmsim_free": (None, [P]),
        "ofdmsim_config_load": (I, [ctypes.POINTER(P), C, ctypes.POINTER(C), I]),
        "ofdmsim_config_parse": (I, [ctypes.POINTER(P), C, ctypes.POINTER(C), I]),
        "ofdmsim_config_free": (None, [P]),
        "ofdmsim_config_points": (S, [P]),
        "ofdmsim_config_echo": (P, [P]),
        "ofdmsim_run": (I, [P, ctypes.POINTER(RunOptions), ctypes.POINTER(P)]),
        "ofdmsim_results_read": (I, [ctypes.POINTER(P), C]),
        "ofdmsim_results_free": (None, [P]),
        "ofdmsim_results_rows": (S, [P]),
        "ofdmsim_results_columns": (S, [P]),
        "ofdmsim_results_column_name": (C, [P, S]),
        "ofdmsim_results_column_type": (I, [P, S]),
        "ofdmsim_results_ints": (I, [P, S, P]),
        "ofdmsim_results_reals": (I, [P, S, P]),
        "ofdmsim_results_text": (C, [P, S, S]),
        "ofdmsim_link_create": (I, [ctypes.POINTER(P), P, S, C, ctypes.c_uint64, I]),
        "ofdmsim_link_free": (None, [P]),
        "ofdmsim_link_get_info": (None, [P, ctypes.POINTER(LinkInfo)]),
        "ofdmsim_link_batch": (I, [P, ctypes.c_uint64, ctypes.c_uint64, ctypes.POINTER(Batch)]),
        "ofdmsim_link_device_alloc": (P, [P, S]),
        "ofdmsim_link_device_free": (None, [P, P]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    if lib.ofdmsim_api_version() != API_VERSION:
        raise ImportError(f"libofdmsim API version {lib.ofdmsim_api_version()}, this package needs {API_VERSION}: "
                          "reinstall the package from the same repository")
    return lib


lib = _bind(ctypes.CDLL(_find()))


def last_error():
    return (lib.ofdmsim_last_error() or b"").decode("utf-8", "replace")


def strings(items):
    """A C array of char* for a list of str (kept alive by the caller's reference)."""
    arr = (ctypes.c_char_p * max(len(items), 1))()
    for i, s in enumerate(items):
        arr[i] = s.encode()
    return arr
