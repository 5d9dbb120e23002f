"""DLPack over device memory the link owns: torch.from_dlpack and
cupy.from_dlpack take these arrays without a copy.

A DeviceArray holds one allocation of the link's GPU. __dlpack__ hands out a
capsule ("dltensor") of a DLManagedTensor whose deleter, called by the
consumer when its tensor dies (or by the capsule when nobody took it),
releases the array's reference; the memory goes back to the link's pool once
no tensor and no DeviceArray use it.
"""
import ctypes
import threading

K_DL_CUDA = 2
K_DL_INT, K_DL_UINT, K_DL_FLOAT, K_DL_COMPLEX = 0, 1, 2, 5


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR]
# On the raw PyObject* a capsule's destructor gets (no reference taken).
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))

# The exports alive: manager_ctx -> (the managed tensor, its shape, the array).
_live = {}
_lock = threading.Lock()
_next_id = [1]


def _release(managed_ptr):
    key = managed_ptr.contents.manager_ctx
    with _lock:
        _live.pop(key, None)


_deleter = _DELETER(_release)


def _capsule_gone(capsule_ptr):
    # A capsule still named "dltensor" was never consumed: its tensor is ours to release.
    if _capsule_is_valid(capsule_ptr, b"dltensor"):
        p = _capsule_pointer(capsule_ptr, b"dltensor")
        _release(ctypes.cast(p, ctypes.POINTER(_DLManagedTensor)))


_capsule_destructor = _CAPSULE_DESTRUCTOR(_capsule_gone)

_DTYPES = {"float32": (K_DL_FLOAT, 32), "uint8": (K_DL_UINT, 8), "uint32": (K_DL_UINT, 32),
           "complex64": (K_DL_COMPLEX, 64), "int32": (K_DL_INT, 32)}


class DeviceBuffer:
    """One allocation of the link's GPU, back to the link's pool when freed."""

    def __init__(self, link, nbytes):
        self.link, self.nbytes = link, nbytes
        self.ptr = link._device_take(nbytes)

    def __del__(self):
        if getattr(self, "ptr", None):
            self.link._device_give(self.ptr, self.nbytes)
            self.ptr = None


class DeviceArray:
    """A C-contiguous array in device memory of the link's GPU, exchangeable
    by DLPack (torch.from_dlpack(a), cupy.from_dlpack(a)) without a copy."""

    def __init__(self, buffer, shape, dtype, device_id=0):
        self.buffer, self.shape, self.dtype, self.device_id = buffer, tuple(int(s) for s in shape), dtype, device_id

    @property
    def ptr(self):
        return self.buffer.ptr

    @property
    def nbytes(self):
        return self.buffer.nbytes

    def __dlpack_device__(self):
        return (K_DL_CUDA, self.device_id)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        # The batch is complete on the device when batch() returns (the
        # library synchronises its stream), so any consumer stream may read it.
        if copy:
            raise BufferError("ofdmsim.DeviceArray: a copy was asked for; it exports its memory only")
        code, bits = _DTYPES[self.dtype]
        shape = (ctypes.c_int64 * max(len(self.shape), 1))(*self.shape)
        m = _DLManagedTensor()
        m.dl_tensor.data = self.ptr
        m.dl_tensor.device = _DLDevice(K_DL_CUDA, self.device_id)
        m.dl_tensor.ndim = len(self.shape)
        m.dl_tensor.dtype = _DLDataType(code, bits, 1)
        m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        m.dl_tensor.strides = None  # C-contiguous
        m.dl_tensor.byte_offset = 0
        with _lock:
            key = _next_id[0]
            _next_id[0] += 1
            _live[key] = (m, shape, self)  # the memory stays until the consumer's deleter runs
        m.manager_ctx = key
        m.deleter = _deleter
        return _api.PyCapsule_New(ctypes.addressof(m), b"dltensor", _capsule_destructor)

    def __repr__(self):
        return f"ofdmsim.DeviceArray(shape={self.shape}, dtype={self.dtype}, cuda:{self.device_id})"


def exports_alive():
    """How many exported tensors still hold their memory (for tests)."""
    with _lock:
        return len(_live)
