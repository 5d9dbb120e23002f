"""Errors raise Python exceptions carrying the command line's message."""
import pytest

import ofdmsim
from conftest import cli_error


def raised(exc_type, *args, **kw):
    with pytest.raises(exc_type) as e:
        ofdmsim.run(*args, progress=False, **kw)
    return e.value


def test_bad_key(small_cfg):
    code, message = cli_error(small_cfg, "--set", "mimo.txx=2")
    e = raised(ofdmsim.ConfigError, small_cfg, overrides=["mimo.txx=2"])
    assert str(e) == message and e.status == code == 2


def test_bad_value(small_cfg):
    code, message = cli_error(small_cfg, "--set", "modulation=17qam")
    e = raised(ofdmsim.ConfigError, small_cfg, overrides={"modulation": "17qam"})
    # the CLI's bare word and Python's quoted string are the same value
    assert str(e).replace('"17qam"', "17qam") == message.replace('"17qam"', "17qam") and code == 2


def test_bad_value_in_the_file(tmp_path):
    cfg = tmp_path / "bad.cfg"
    cfg.write_text('mimo = { tx = 9; rx = 2; };\n')
    code, message = cli_error(cfg)
    e = raised(ofdmsim.ConfigError, cfg)
    assert str(e) == message and str(cfg) in message


def test_missing_file(tmp_path):
    missing = tmp_path / "nothere.cfg"
    code, message = cli_error(missing)
    e = raised(ofdmsim.ConfigError, missing)
    assert str(e) == message and code == 2


def test_bad_text_names_the_text():
    with pytest.raises(ofdmsim.ConfigError, match="<text>"):
        ofdmsim.Config("mimo = { tx = 9; rx = 2; };\n")


def test_existing_output(small_cfg, tmp_path):
    out = tmp_path / "r.csv"
    out.write_text("x\n")
    code, message = cli_error(small_cfg, "-o", out)
    e = raised(ofdmsim.ConfigError, small_cfg, output=out)
    assert str(e) == message and out.read_text() == "x\n"


def test_unusable_backend(small_cfg):
    pytest.importorskip("numpy")
    if ofdmsim.Link(small_cfg, backend="auto").backend == "cuda":
        pytest.skip("this build has a usable GPU")
    code, message = cli_error(small_cfg, "--set", "simulation.backend=cuda")
    e = raised(ofdmsim.RuntimeFailure, small_cfg, backend="cuda")
    assert str(e) == message and code == 1


def test_read_missing_and_not_results(tmp_path):
    with pytest.raises(ofdmsim.ConfigError, match="cannot read"):
        ofdmsim.read(tmp_path / "none.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(ofdmsim.ConfigError, match="point"):
        ofdmsim.read(bad)
