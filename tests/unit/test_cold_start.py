"""handler_imports: the collector is paused inside, restored after (even on an error)."""
from __future__ import annotations

import gc

import pytest

from chalicelib.aws.cold_start import handler_imports


def test_the_collector_is_paused_inside_and_restored_after():
    assert gc.isenabled()
    with handler_imports():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.unfreeze()   # the test process's objects back in the collector's sight


def test_an_import_error_still_restores_the_collector():
    with pytest.raises(ImportError), handler_imports():
        import chalicelib.no_such_module  # noqa: F401
    assert gc.isenabled()
    gc.unfreeze()


def test_a_collector_disabled_before_stays_disabled():
    gc.disable()
    try:
        with handler_imports():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
