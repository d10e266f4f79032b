"""The local copy of a sent email appears whole: the notifier runs in the workers process
and whoever watches the mail folder must never read half an email."""
from __future__ import annotations

import os
from email.message import EmailMessage

from chalicelib.aws import email as mail


def test_the_eml_file_appears_whole_under_its_final_name(tmp_path, monkeypatch):
    monkeypatch.setenv("LOCAL_MAIL_DIR", str(tmp_path))
    renames = []
    real_replace = os.replace

    def replace(source, target):
        renames.append((str(source), str(target)))
        real_replace(source, target)

    monkeypatch.setattr(mail.os, "replace", replace)
    message = EmailMessage()
    message["To"], message["Subject"] = "a@example.com", "hello"
    message.set_content("are you there?")
    path = mail.write_local_copy(message)
    [(source, target)] = renames
    assert not source.endswith(".eml") and target == str(path)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    assert "are you there?" in path.read_text()
