"""Results as pandas DataFrames, typed as the C library types the CSV's columns."""
import ctypes
import json
import os

import numpy as np

from . import _lib
from .errors import raise_for


def frame_from_handle(h):
    """A DataFrame of a results object: one row per point, one column per CSV column, in CSV order."""
    import pandas as pd
    lib = _lib.lib
    rows, cols = lib.ofdmsim_results_rows(h), lib.ofdmsim_results_columns(h)
    data = {}
    for c in range(cols):
        name = lib.ofdmsim_results_column_name(h, c).decode()
        kind = lib.ofdmsim_results_column_type(h, c)
        if kind == _lib.INT:
            a = np.empty(rows, dtype=np.int64)
            lib.ofdmsim_results_ints(h, c, a.ctypes.data)
        elif kind == _lib.REAL:
            a = np.empty(rows, dtype=np.float64)
            lib.ofdmsim_results_reals(h, c, a.ctypes.data)
        else:
            a = np.array([lib.ofdmsim_results_text(h, r, c).decode() for r in range(rows)], dtype=object)
        data.setdefault(name, a)  # a column named twice: the first, as the program's readers take it
    return pd.DataFrame(data, index=pd.RangeIndex(rows))


def sidecar_of(csv_path):
    """The JSON sidecar beside a results CSV (results.csv -> results.json), parsed, or None."""
    base = os.fspath(csv_path)
    path = (base[:-4] if base.endswith(".csv") else base) + ".json"
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read(path):
    """The DataFrame of a results CSV (a run's, a merge's, an MPI run's), typed as `run` types it;
    df.attrs holds the path and, when there is one, the JSON sidecar."""
    h = ctypes.c_void_p()
    rc = _lib.lib.ofdmsim_results_read(ctypes.byref(h), os.fspath(path).encode())
    if rc:
        raise_for(rc, _lib.last_error())
    try:
        df = frame_from_handle(h)
    finally:
        _lib.lib.ofdmsim_results_free(h)
    df.attrs["path"] = os.fspath(path)
    side = sidecar_of(path)
    if side is not None:
        df.attrs["sidecar"] = side
    return df
