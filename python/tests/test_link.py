"""ofdmsim.Link: the run's own frames, batch by batch."""
import numpy as np
import pytest

import ofdmsim
from conftest import run_cli


def test_llr_signs_give_the_cli_bit_errors(small_cfg, tmp_path):
    """At each point, the bit errors of the LLR signs over the point's frames
    are the errors the CLI counted for it (max-log QPSK: the sign is the
    receiver's decision), frame for frame."""
    run_cli(small_cfg, "-q", "-o", tmp_path / "cli.csv")
    cli = ofdmsim.read(tmp_path / "cli.csv")
    for point in range(len(cli)):
        frames = int(cli["frames"].iloc[point])
        with ofdmsim.Link(small_cfg, point=point, backend="cpu", max_frames=frames) as link:
            b = link.batch(frames)
            assert b.llr.shape == (frames, link.data_res_per_frame, 2, 2) and b.llr.dtype == np.float32
            decided = (b.llr > 0).astype(np.uint8)
            errors = int((decided != b.bits).sum())
            assert errors == int(cli["bit_errors"].iloc[point]) == int(b.bit_errors.sum())
            per_stream = (decided != b.bits).sum(axis=(0, 1, 3))
            assert ";".join(map(str, per_stream)) == cli["stream_bit_errors"].iloc[point]
            assert link.point_key == int(cli["point_key"].iloc[point], 16)


def test_batches_continue_the_frames(small_cfg):
    """Two batches of 3 are one batch of 6: counter-based frames."""
    with ofdmsim.Link(small_cfg, point=1, backend="cpu", max_frames=6) as link:
        a, b = link.batch(3), link.batch(3)
        whole = link.batch(6, offset=0)
    assert np.array_equal(np.concatenate([a.llr, b.llr]), whole.llr)
    assert np.array_equal(np.concatenate([a.bits, b.bits]), whole.bits)
    assert (a.frame_offset, b.frame_offset) == (0, 3)


def test_channels_and_symbols(small_cfg):
    """The kept channels are unit-power Rayleigh, and the equalised symbols'
    signs are the receiver's QPSK decisions: their bit errors are the
    batch's counts (label bit 0 on the quadrature axis, bit 1 on the
    in-phase one, a positive component for a 1)."""
    with ofdmsim.Link(small_cfg, point=2, backend="cpu", max_frames=4, channels=True) as link:
        b = link.batch(4)
    assert b.channels.shape == (2, 2, 4, 2, 64) and b.channels.dtype == np.complex64
    power = float(np.mean(np.abs(b.channels) ** 2))
    assert abs(power - 1.0) < 0.1  # 2048 CN(0,1) entries: sd of the mean ~0.022
    assert b.symbols.shape == (2, 4, 2, 64)
    x = b.symbols.transpose(1, 2, 3, 0).reshape(4, 128, 2)  # frame, RE (symbol-major), stream
    decided = np.stack([x.imag > 0, x.real > 0], axis=-1).astype(np.uint8)
    wrong = decided != b.bits
    assert int(wrong.sum()) == int(b.bit_errors.sum()) > 0
    assert list(wrong.sum(axis=(1, 3)).reshape(-1)) == list(b.bit_errors.reshape(-1))


def test_bad_point_and_batch(small_cfg):
    with pytest.raises(ofdmsim.ConfigError, match="point 7: expected a point of the sweep"):
        ofdmsim.Link(small_cfg, point=7, backend="cpu")
    with ofdmsim.Link(small_cfg, backend="cpu", max_frames=2) as link:
        with pytest.raises(ofdmsim.ConfigError, match="a batch of 3 frames: expected 1 to 2"):
            link.batch(3)


def test_hard_point_has_no_llrs(small_cfg):
    with ofdmsim.Link(small_cfg, overrides={"receiver.llr": "off"}, backend="cpu", max_frames=2) as link:
        b = link.batch(2)
        assert b.llr is None and b.bits is None and b.bit_errors.shape == (2, 2)


def test_cpu_arrays_take_dlpack(small_cfg):
    """NumPy's own DLPack: a CPU batch goes to any DLPack consumer."""
    with ofdmsim.Link(small_cfg, backend="cpu", max_frames=2) as link:
        llr = link.batch(2).llr
    assert np.from_dlpack(llr).ctypes.data == llr.ctypes.data
