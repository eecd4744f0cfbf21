"""Preset files: every shipped one loads; bad ones fail naming the file."""

from __future__ import annotations

import pytest

from edgevox.llm.presets import (
    PresetError,
    all_presets,
    detect_preset,
    get_preset,
    load_preset_file,
)

REQUIRED_FAMILIES = {"hermes", "qwen25", "llama32", "mistral", "pythonic", "xlam", "granite", "gemma"}


def test_required_presets_ship():
    assert REQUIRED_FAMILIES <= set(all_presets())


def test_every_preset_is_consistent():
    for preset in all_presets().values():
        assert preset.detectors and preset.wire_format and preset.stop, preset.name
        assert preset.tool_results in {"native", "synthetic"}
        if preset.tool_results == "synthetic":
            assert "{results}" in preset.synthetic_template


def test_unknown_detector_names_the_file(tmp_path):
    f = tmp_path / "broken.toml"
    f.write_text('name = "broken"\nfamily = "x"\ndetectors = ["hermes", "klingon"]\nwire_format = "hermes"\n')
    with pytest.raises(PresetError) as err:
        load_preset_file(f)
    assert str(f) in str(err.value) and "klingon" in str(err.value)


def test_bad_toml_names_the_file(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text("name = \n")
    with pytest.raises(PresetError, match="bad.toml"):
        load_preset_file(f)


def test_missing_key(tmp_path):
    f = tmp_path / "short.toml"
    f.write_text('name = "short"\n')
    with pytest.raises(PresetError, match="missing required key"):
        load_preset_file(f)


def test_unknown_preset_lists_known():
    with pytest.raises(PresetError, match="known presets"):
        get_preset("nope")


@pytest.mark.parametrize("arch,template,expected", [
    ("qwen2", "<|im_start|>… <tool_call>", "qwen25"),
    ("qwen3", "<think> <tool_call>", "qwen3"),
    ("llama", "<|start_header_id|>ipython Environment: ipython <|python_tag|>", "llama32"),
    ("gemma3", "<start_of_turn>", "gemma3"),
    ("mistral3", "[TOOL_CALLS]", "mistral"),
    ("granite", "<|start_of_role|> <|tool_call|>", "granite"),
    ("unknown-arch", None, "envelope"),
])
def test_detect_preset(arch, template, expected):
    assert detect_preset(arch, template).name == expected


def test_a_profile_file_is_its_base_with_a_profile(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('name = "mine"\nbase = "qwen25+envelope"\n[profile]\ndemonstrations = true\nconstrain_auto = true\n')
    p = load_preset_file(f)
    base = get_preset("qwen25+envelope")
    assert p.name == "mine" and p.wire_format == "envelope" == base.wire_format and p.stop == base.stop
    assert p.profile == {"demonstrations": True, "constrain_auto": True} and p.architectures == ()
    f.write_text('name = "mine"\nbase = "qwen25"\nwire_format = "hermes"\n')
    with pytest.raises(PresetError, match="unknown key"):
        load_preset_file(f)
    f.write_text('name = "mine"\nbase = "qwen25"\n[profile]\nconfirm_below = "low"\n')
    with pytest.raises(PresetError, match="wrong type"):
        load_preset_file(f)
    f.write_text('name = "mine"\nbase = "nope"\n')
    with pytest.raises(PresetError, match="known presets"):
        load_preset_file(f)
