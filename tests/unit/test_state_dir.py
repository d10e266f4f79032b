"""make run's state directory: `.local-state` links to a directory outside the checkout,
so that nothing the stack writes is under the project Chalice's file watcher walks."""
from __future__ import annotations

from pathlib import Path

import pytest

from infra.local import environment


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.setattr(environment, "REPO_ROOT", repo)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state-home"))
    monkeypatch.delenv("LOCAL_STATE_DIR", raising=False)
    return repo


def test_a_new_checkout_links_its_state_outside_the_tree(checkout: Path):
    # GIVEN a checkout without state WHEN the stack prepares it
    state = environment.prepare_state_dir()
    # THEN .local-state is a link to a directory under XDG_STATE_HOME
    assert state == checkout / ".local-state" and state.is_symlink()
    assert state.resolve() == environment.linked_state_home().resolve()
    assert not state.resolve().is_relative_to(checkout)
    (state / "journal").write_text("x")
    assert environment.prepare_state_dir().joinpath("journal").read_text() == "x"


def test_an_earlier_state_directory_is_moved_out_with_its_files(checkout: Path):
    (checkout / ".local-state").mkdir()
    (checkout / ".local-state" / "snapshot").write_text("kept")
    state = environment.prepare_state_dir()
    assert state.is_symlink() and (state / "snapshot").read_text() == "kept"


def test_a_link_whose_directory_was_removed_is_made_again(checkout: Path):
    state = environment.prepare_state_dir()
    state.resolve().rmdir()
    assert environment.prepare_state_dir().is_dir()


def test_local_state_dir_is_used_as_given(checkout: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LOCAL_STATE_DIR", str(tmp_path / "given"))
    state = environment.prepare_state_dir()
    assert state == tmp_path / "given" and state.is_dir() and not state.is_symlink()
