"""`make run` shows what it would email and push: .eml files and one line per email."""
from __future__ import annotations

import time

import requests


def test_missed_message_email_is_an_eml_file_and_a_printed_line(local_stack):
    accounts = local_stack.accounts()
    api = local_stack.url + "/api/v1"
    # The guest: no other test on the shared stack marks it active (the reference's
    # examples post presence for the administrator, who then gets no missed-message email).
    away = (accounts["guest"]["email"], accounts["guest"]["api_key"])
    owner = (accounts["owner"]["email"], accounts["owner"]["api_key"])
    me = requests.get(api + "/users/me", auth=away, timeout=10).json()
    assert requests.patch(api + "/settings", auth=away, timeout=10, data={
        "email_notifications_batching_period_seconds": 1}).json()["result"] == "success"
    assert requests.post(api + "/users/me/android_gcm_reg_id", auth=away, timeout=10,
                         data={"token": "e2e-phone"}).json()["result"] == "success"
    mail = local_stack.state_dir / "mail"
    before = set(mail.glob("*.eml")) if mail.exists() else set()
    sent = requests.post(api + "/messages", auth=owner, timeout=10, data={
        "type": "direct", "to": f"[{me['user_id']}]", "content": "are you there?"}).json()
    assert sent["result"] == "success", sent
    log = local_stack.state_dir.parent / f"stack-{local_stack.port}.log"
    deadline = time.time() + 30
    new: set = set()
    while time.time() < deadline and not new:
        new = (set(mail.glob("*.eml")) if mail.exists() else set()) - before
        time.sleep(0.1)
    assert new, "no .eml file written"
    texts = [path.read_text() for path in new]
    assert any("are you there?" in text and "List-Unsubscribe-Post" in text
               for text in texts)
    printed = log.read_text()
    assert any(f"-> {path}" in printed for path in new)
    assert "[push] message to fcm device" in printed
