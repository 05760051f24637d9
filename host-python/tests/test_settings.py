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


@pytest.mark.parametrize("section, error", [
    ("bundle_url: http://policies.example.com/b.tar.gz\n  bundle_keys: [k.pem]", "must be an https:// URL"),
    ("bundle_url: https://policies.example.com/b.tar.gz", "needs agentsfence.bundle_keys"),
    ("bundle_url: https://p.example.com/b\n  bundle_keys: [k.pem]\n  bundle_poll: 0", "bundle_poll must be a number of seconds"),
    ("bundle_keys: [1]", "must be a list of public keys"),
    ("audit_syslog: udp://logs.example.com:514", "must be tcp://HOST:PORT or tls://HOST:PORT"),
    ("audit_syslog: tcp://logs.example.com", "must be tcp://HOST:PORT or tls://HOST:PORT"),
    ("audit_syslog_ca: [a]", "must be a string"),
])
def test_fleet_settings_out_of_their_choices_are_refused(tmp_path, section, error):
    with pytest.raises(SettingsError, match=error):
        settings_of(tmp_path, f"agentsfence:\n  {section}\n")


def test_fleet_settings_files_are_relative_to_the_hermes_home(tmp_path):
    settings = settings_of(tmp_path, "agentsfence:\n  bundle_url: https://p.example.com/b\n  bundle_keys: keys/a.pub.pem\n"
                                     "  bundle_ca: ca.pem\n  audit_syslog: tls://[::1]:6514\n  audit_syslog_ca: /etc/ca.pem\n")
    assert settings.bundle_keys == (str(tmp_path / "keys/a.pub.pem"),)
    assert settings.bundle_ca == str(tmp_path / "ca.pem") and settings.audit_syslog_ca == "/etc/ca.pem"
