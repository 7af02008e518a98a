"""The quick lane's choice of tests (tests/changed.py): the unit tests of what changed, no more."""

from __future__ import annotations

import changed


def test_a_changed_module_selects_the_tests_that_import_it() -> None:
    picked = changed.selected({"helpers/retrieval/hybrid.py"})
    assert "tests/test_retrieval.py" in picked and "tests/test_store_hybrid.py" in picked
    assert "tests/test_grading.py" not in picked and not [p for p in picked if "/reliability/" in p or "browser" in p]


def test_a_changed_test_is_its_own_test_and_the_pins_select_every_unit_test() -> None:
    assert changed.selected({"tests/test_config.py"}) == ["tests/test_config.py"]
    assert changed.selected({"README.md", "docs/decisions.md"}) == []
    everything = changed.selected({"requirements.lock"})
    assert len(everything) == len(changed.unit_test_files()) > 50
