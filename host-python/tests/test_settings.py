"""Reading the `agentsfence:` section of Hermes' config.yaml (agentsfence/settings.py)."""
from __future__ import annotations

import pytest

from agentsfence.settings import Settings, SettingsError, load_settings


def settings_of(tmp_path, text: str) -> Settings:
    (tmp_path / "config.yaml").write_text(text)
    return load_settings(tmp_path)


@pytest.mark.parametrize("text, strict_yolo", [
    ("model: {default: x}\nagentsfence:\n  strict_yolo: false\n", False),
    ("'agentsfence': {strict_yolo: false}\n", False),  # a quoted key is the same key
    ("agentsfence: {strict_yolo: false}\nagentsfence: {strict_yolo: true}\n", True),  # the last one wins
    ("base: &fence {agentsfence: {strict_yolo: false}}\n<<: *fence\n", False),  # a merge key
    ("base: {agentsfence: {strict_yolo: false}}\n", True),  # not at the top level
    ("", True),
    ("- a list\n", True),
])
def test_the_section_is_the_top_level_value_a_full_load_gives(tmp_path, text, strict_yolo):
    assert settings_of(tmp_path, text).strict_yolo is strict_yolo


@pytest.mark.parametrize("text", [
    "agentsfence: {strict_yolo: false}\nmodel: [unclosed\n",  # a syntax error outside the section
    "agentsfence: {}\n---\nsecond: document\n",
    "agentsfence: !!python/name:os.system {}\n",  # a tag the safe loader refuses, in the section
])
def test_text_that_is_not_one_valid_document_is_refused(tmp_path, text):
    with pytest.raises(SettingsError, match="is not valid YAML"):
        settings_of(tmp_path, text)
