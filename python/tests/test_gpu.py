"""The GPU path: LLRs in device memory the link owns, handed to PyTorch and
CuPy by DLPack without a copy. Skipped without a usable GPU (run by
scripts/python-gpu-check.sh on the device machine)."""
import ctypes
import ctypes.util
import gc

import numpy as np
import pytest

import ofdmsim
from ofdmsim import dlpack


def gpu_link(cfg, **kw):
    try:
        return ofdmsim.Link(cfg, backend="cuda", **kw)
    except ofdmsim.OfdmsimError as e:
        pytest.skip(f"no usable GPU: {e}")


def to_host(arr):
    """A DeviceArray's bytes on the host by cudaMemcpy (no framework needed)."""
    name = ctypes.util.find_library("cudart") or "libcudart.so"
    try:
        cudart = ctypes.CDLL(name)
    except OSError:
        pytest.skip("no libcudart to read device memory with")
    host = np.empty(arr.shape, dtype=arr.dtype)
    rc = cudart.cudaMemcpy(ctypes.c_void_p(host.ctypes.data), ctypes.c_void_p(arr.ptr), ctypes.c_size_t(arr.nbytes),
                           2)  # cudaMemcpyDeviceToHost
    assert rc == 0, f"cudaMemcpy: {rc}"
    return host


def test_gpu_llrs_match_the_cpu(small_cfg):
    with gpu_link(small_cfg, point=1, max_frames=8) as link, \
            ofdmsim.Link(small_cfg, point=1, backend="cpu", max_frames=8) as cpu:
        g, c = link.batch(8), cpu.batch(8)
        assert isinstance(g.llr, ofdmsim.DeviceArray) and g.llr.__dlpack_device__() == (2, 0)
        llr, bits = to_host(g.llr), to_host(g.bits)
    assert np.array_equal(bits, c.bits)  # the same Philox words
    # normals agree to a few 1e-6 between the backends: LLRs to ~1e-4 of their scale
    assert np.allclose(llr, c.llr, rtol=1e-3, atol=1e-3 * float(np.abs(c.llr).max()))
    assert np.mean(np.sign(llr) != np.sign(c.llr)) < 1e-3


def test_torch_zero_copy(small_cfg):
    torch = pytest.importorskip("torch")
    with gpu_link(small_cfg, point=2, max_frames=16) as link:
        b = link.batch(16)
        t = torch.from_dlpack(b.llr)
        assert t.is_cuda and t.data_ptr() == b.llr.ptr and tuple(t.shape) == b.llr.shape
        tb = torch.from_dlpack(b.bits)
        errors = int(((t > 0).to(torch.uint8) != tb).sum())
        assert errors == int(b.bit_errors.sum())  # max-log QPSK: sign = decision
        ptr = b.llr.ptr
        del t, tb, b
        gc.collect()
        assert dlpack.exports_alive() == 0
        # the pool hands the same memory to the next batch: no allocation per batch
        assert link.batch(16).llr.ptr == ptr


def test_cupy_zero_copy(small_cfg):
    cupy = pytest.importorskip("cupy")
    with gpu_link(small_cfg, point=0, max_frames=4) as link:
        b = link.batch(4)
        a = cupy.from_dlpack(b.llr)
        assert a.data.ptr == b.llr.ptr and a.shape == b.llr.shape
        assert np.array_equal(cupy.asnumpy(a), to_host(b.llr))


def test_gpu_channels(small_cfg):
    with gpu_link(small_cfg, point=2, max_frames=2, channels=True) as link, \
            ofdmsim.Link(small_cfg, point=2, backend="cpu", max_frames=2, channels=True) as cpu:
        g, c = link.batch(2), cpu.batch(2)
        h = to_host(g.channels)
    assert np.allclose(h, c.channels, atol=1e-4)
