"""ofdmsim.plot: one curve per differing key, intervals, theory, log axis."""
import pytest

import ofdmsim


def test_plot_curves(small_cfg):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    df = ofdmsim.run(small_cfg, overrides=['sweep=({ key = "equalizer"; values = ["zf", "mmse"]; })',
                                           "mimo.tx=1", "mimo.rx=1"], progress=False)
    assert len(df) == 6
    ax = ofdmsim.plot(df)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    # two measured curves named by the differing key, each with its closed-form theory (1x1 has one)
    assert [l for l in labels if "theory" not in l] == ["equalizer=zf", "equalizer=mmse"]
    assert sum("theory" in l for l in labels) == 2
    assert ax.get_yscale() == "log"
