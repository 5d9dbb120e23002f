"""ofdmsim from Python: the simulator's sweeps as pandas DataFrames, and its
link's batches (bits, LLRs, channels) as NumPy arrays or, on the GPU, as
DLPack arrays that PyTorch and CuPy take without a copy.

    import ofdmsim
    df = ofdmsim.run("configs/default.cfg", overrides={"simulation.max_bits": 1e6})
    ofdmsim.plot(df, x="snr_db", y="ber")
    link = ofdmsim.Link("configs/default.cfg", overrides={"receiver.llr": "maxlog"}, backend="cuda")
    llr = torch.from_dlpack(link.batch(16).llr)

Over libofdmsim (the repository's C library, api/ofdmsim.h), through ctypes.
"""
from ._lib import lib as _clib
from .config import Config
from .errors import ConfigError, Interrupted, OfdmsimError, RuntimeFailure
from .link import Batch, Link
from .dlpack import DeviceArray
from .results import read
from .run import run
from .plot import plot

__version__ = _clib.ofdmsim_version().decode()

__all__ = ["run", "read", "plot", "Link", "Batch", "Config", "DeviceArray", "OfdmsimError", "ConfigError",
           "RuntimeFailure", "Interrupted", "__version__"]
