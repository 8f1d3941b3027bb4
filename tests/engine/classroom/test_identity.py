"""A browser's signed id: issued ids verify, anything else is refused; the secret is made once and kept."""
from __future__ import annotations

import stat

from engine.classroom import identity


def test_a_signed_id_verifies_and_a_changed_one_does_not():
    secret = b"s" * 32
    browser = identity.new_id()
    cookie = identity.sign(browser, secret)
    assert identity.verify(cookie, secret) == browser
    assert identity.verify(cookie, b"another secret") is None
    assert identity.verify(identity.new_id() + cookie[cookie.index("."):], secret) is None   # another id, same tail
    for bad in (None, "", "no-separator", "." * 300, f"{browser}.", f".{cookie.split('.')[1]}"):
        assert identity.verify(bad, secret) is None


def test_ids_are_random_and_long_enough():
    ids = {identity.new_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) >= 21 for i in ids)      # 16 bytes of URL-safe base64


def test_the_secret_comes_from_the_environment_else_one_file_made_once(tmp_path):
    assert identity.load_secret(tmp_path, env={identity.SECRET_ENV: "shared"}) == b"shared"
    first = identity.load_secret(tmp_path, env={})
    assert len(first) == 64 and identity.load_secret(tmp_path, env={}) == first     # a restart keeps it
    mode = (tmp_path / identity.SECRET_FILE).stat().st_mode
    assert not mode & (stat.S_IRGRP | stat.S_IROTH)                                  # its owner's alone


def test_a_browser_is_one_student_and_its_teacher_credential_is_another_thing():
    browser, other = identity.new_id(), identity.new_id()
    assert identity.student_id(browser) == identity.student_id(browser) != identity.student_id(other)
    assert identity.teacher_credential(browser) != identity.student_id(browser)
    assert browser not in identity.student_id(browser) and browser not in identity.teacher_credential(browser)
    assert len(identity.student_id(browser)) <= 64          # engine.limits.CLASS_MAX_STUDENT_ID_CHARS
