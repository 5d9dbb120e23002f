"""ofdmsim.run and ofdmsim.read against the command line's own files."""
import math

import numpy as np
import pandas as pd
import pytest

import ofdmsim
from conftest import SMALL, run_cli

# The columns holding hexadecimal keys or per-stream lists: text, whatever digits they show.
TEXT = ["point_key", "stream_key", "stream_bit_errors", "stream_gmi", "stream_gmi_loss", "label"]


def same_column(a, b, name):
    """a (ofdmsim's) equals b (another reader's) cell by cell, in a's type."""
    # text (object, or pandas 3's str dtype): an empty cell is "" to ofdmsim, NaN to pandas
    if a.dtype == object or pd.api.types.is_string_dtype(a.dtype):
        assert list(a) == ["" if pd.isna(v) else str(v) for v in b], name
    elif a.dtype.kind == "f":
        assert np.array_equal(a.to_numpy(), b.astype(float).to_numpy(), equal_nan=True), name
    else:
        assert list(a) == [int(v) for v in b], name


def test_frame_equals_csv_of_the_same_run(small_cfg, tmp_path):
    out = tmp_path / "r.csv"
    df = ofdmsim.run(small_cfg, output=out, progress=False)
    # round_trip: pandas' default float parser is not exact, strtod is
    csv = pd.read_csv(out, dtype={c: str for c in TEXT}, keep_default_na=False, na_values=[""],
                      float_precision="round_trip")
    assert list(df.columns) == list(csv.columns)
    assert len(df) == len(csv) == 3
    for c in df.columns:
        same_column(df[c], csv[c], c)
    # typed: counts are integers, rates reals, keys text
    assert df["bits"].dtype == np.int64 and df["bit_errors"].dtype == np.int64
    assert df["ber"].dtype == np.float64 and df["snr_db"].dtype == np.float64
    assert pd.api.types.is_string_dtype(df["point_key"].dtype) and df["modulation"].iloc[0] == "qpsk"
    assert "mimo.tx = 2;" in df.attrs["config"].replace("  ", " ") or "tx = 2" in df.attrs["config"]


def test_counts_equal_the_command_line(small_cfg, tmp_path):
    """The library's run is the CLI's run: the same points, bits and errors."""
    df = ofdmsim.run(small_cfg, progress=False)
    run_cli(small_cfg, "-q", "-o", tmp_path / "cli.csv")
    cli = ofdmsim.read(tmp_path / "cli.csv")
    for c in ["point", "point_key", "bits", "bit_errors", "frames", "stop", "stream_bit_errors", "ber",
              "frame_errors_sq", "gmi"]:
        same_column(df[c], cli[c], c)


def test_read_round_trips(small_cfg, tmp_path):
    out = tmp_path / "r.csv"
    df = ofdmsim.run(small_cfg, overrides={"simulation.snr_db": [3.0]}, output=out, progress=False)
    back = ofdmsim.read(out)
    assert list(back.columns) == list(df.columns)
    for c in df.columns:
        same_column(df[c], back[c], c)
    assert back.attrs["sidecar"]["points"][0]["bits"] == int(df["bits"].iloc[0])


def test_read_merged_results(small_cfg, tmp_path):
    """read takes what `ofdmsim merge` writes from shards."""
    for i in (1, 2):
        run_cli(small_cfg, "-q", "--shard", f"{i}/2", "-o", tmp_path / f"s{i}.csv")
    run_cli("merge", tmp_path / "s1.csv", tmp_path / "s2.csv", "-o", tmp_path / "all.csv")
    merged = ofdmsim.read(tmp_path / "all.csv")
    whole = ofdmsim.run(small_cfg, progress=False)
    assert sorted(merged["point_key"]) == sorted(whole["point_key"])
    m = merged.set_index("point_key").loc[whole["point_key"]]
    assert list(m["bit_errors"]) == list(whole["bit_errors"])


def test_overrides_and_text(small_cfg):
    df = ofdmsim.run(SMALL, overrides={"modulation": "16qam", "simulation.snr_db": [10.0]}, progress=False)
    assert list(df["modulation"]) == ["16qam"] and list(df["snr_db"]) == [10.0]
    df2 = ofdmsim.run(small_cfg, overrides=["modulation=16qam", "simulation.snr_db=[10.0]"], progress=False)
    assert list(df2["bit_errors"]) == list(df["bit_errors"])


def test_output_never_replaced_silently(small_cfg, tmp_path):
    out = tmp_path / "r.csv"
    ofdmsim.run(small_cfg, overrides={"simulation.snr_db": [0.0]}, output=out, progress=False)
    before = out.read_bytes()
    with pytest.raises(ofdmsim.ConfigError, match="already exists; --force replaces it"):
        ofdmsim.run(small_cfg, output=out, progress=False)
    assert out.read_bytes() == before
    df = ofdmsim.run(small_cfg, output=out, force=True, progress=False)
    assert len(df) == 3


def test_resume_from_python(small_cfg, tmp_path):
    out = tmp_path / "r.csv"
    first = ofdmsim.run(small_cfg, output=out, progress=False)
    again = ofdmsim.run(small_cfg, output=out, resume=True, progress=False)
    assert list(again["bit_errors"]) == list(first["bit_errors"])
    assert list(again["frames"]) == list(first["frames"])


def test_progress_callback_sees_every_point(small_cfg):
    seen = []
    ofdmsim.run(small_cfg, progress=False, on_progress=lambda p: seen.append(p.points_done) and False)
    assert seen[-1] == 3 and seen == sorted(seen)


def test_interrupt_keeps_finished_points(small_cfg, tmp_path):
    """A KeyboardInterrupt (Ctrl-C) during the second point: the first is kept, in the frame and the files."""
    out = tmp_path / "r.csv"
    full = ofdmsim.run(small_cfg, progress=False)

    def interrupt(p):
        if p.points_done >= 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as e:
        ofdmsim.run(small_cfg, output=out, progress=False, on_progress=interrupt)
    assert isinstance(e.value, ofdmsim.Interrupted)
    kept = e.value.results
    assert len(kept) >= 1 and kept["stop"].iloc[0] == full["stop"].iloc[0]
    assert kept["bit_errors"].iloc[0] == full["bit_errors"].iloc[0]
    on_disk = ofdmsim.read(out)
    assert on_disk["bit_errors"].iloc[0] == full["bit_errors"].iloc[0]
    # and --resume from Python finishes the sweep with the counts of an uninterrupted run
    done = ofdmsim.run(small_cfg, output=out, resume=True, progress=False)
    assert list(done["bit_errors"]) == list(full["bit_errors"])


def test_a_run_after_an_interrupt_runs(small_cfg):
    def stop(p):
        raise KeyboardInterrupt

    with pytest.raises(ofdmsim.Interrupted):
        ofdmsim.run(small_cfg, progress=False, on_progress=stop)
    assert len(ofdmsim.run(small_cfg, progress=False)) == 3


def test_theory_and_nan(small_cfg):
    df = ofdmsim.run(small_cfg, overrides={"simulation.snr_db": [0.0]}, progress=False)
    # 2x2 MMSE has no closed form here: an empty theory column, still reals (NaN)
    assert df["theory_ber"].dtype == np.float64 and math.isnan(df["theory_ber"].iloc[0])
    assert 0 < df["ber"].iloc[0] < 0.5 and not math.isnan(df["ci95_low"].iloc[0])


def test_ctrl_c_keeps_finished_points(small_cfg, tmp_path):
    """A real SIGINT to this process once the first point is done: the run
    stops at its next batch, the first point kept as an uninterrupted run has it."""
    import os
    import signal
    full = ofdmsim.run(small_cfg, progress=False)
    sent = []

    def ctrl_c(p):
        if p.points_done >= 1 and not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(ofdmsim.Interrupted) as e:
        ofdmsim.run(small_cfg, output=tmp_path / "r.csv", progress=False, on_progress=ctrl_c)
    kept = e.value.results
    assert sent and 1 <= len(kept) < 3 + 1
    assert kept["bit_errors"].iloc[0] == full["bit_errors"].iloc[0] and kept["stop"].iloc[0] == full["stop"].iloc[0]
    assert ofdmsim.read(tmp_path / "r.csv")["bit_errors"].iloc[0] == full["bit_errors"].iloc[0]
