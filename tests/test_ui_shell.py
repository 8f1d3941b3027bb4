"""The shell's page link (what the sidebar's QR code carries)."""
from __future__ import annotations

from types import SimpleNamespace

from ui import shell


class _Params(dict):
    def to_dict(self) -> dict:
        return dict(self)


def test_the_page_link_keeps_the_settings_and_the_class_but_never_a_teacher_key(monkeypatch):
    fake = SimpleNamespace(context=SimpleNamespace(url="http://room:8501/attention?old=1"),
                           query_params=_Params(x="crane", causal="1", **{"class": "ABCD2345", "teach": "s3cr3t-id-1"}))
    monkeypatch.setattr(shell, "st", fake)
    link = shell.page_link()
    assert link.startswith("http://room:8501/attention?")
    assert "x=crane" in link and "causal=1" in link and "class=ABCD2345" in link
    assert "teach" not in link and "s3cr3t" not in link
