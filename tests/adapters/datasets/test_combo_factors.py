import pytest
from combo_fixture import write_tiny_table

from adapters.datasets.combo.factors import FACTOR_NAMES, FactorTable, FactorTableError, UnknownObjectError


@pytest.fixture(scope="module")
def table():
    return FactorTable.load()


def test_default_table_has_comboss_9504_objects(table):
    assert len(table.primary_options) == 11 and len(table.secondary_options) == 6
    assert table.n_appearances == 12
    assert table.n_objects == 9504
    assert table.shapes == ("cube", "sphere", "cylinder", "cone", "conical_frustum")
    # Only the cone has two pivots (ComBo's paper).
    pivots = [a.shape for a in table.secondary_options]
    assert pivots.count("cone") == 2 and all(pivots.count(s) == 1 for s in table.shapes if s != "cone")


def test_bijection_round_trip_over_every_id(table):
    seen = set()
    for obj in table.all_objects:
        factors = obj.factors()
        assert table.object_id(**factors) == obj.object_id
        seen.add(tuple(factors[n] for n in FACTOR_NAMES))
    assert len(seen) == 9504  # distinct factor tuples: the map is injective, hence a bijection


def test_unknown_ids_and_factors_are_clear_errors(table):
    for bad in (-1, 9504, "3", 2.0):
        with pytest.raises(UnknownObjectError, match="not in the factor table"):
            table.object(bad)
    factors = table.object(0).factors() | {"anchor": "apex"}  # cube has no apex anchor
    with pytest.raises(UnknownObjectError, match="not a known combination"):
        table.object_id(**factors)
    with pytest.raises(UnknownObjectError, match="missing"):
        table.object_id(primary_shape="cube")


def test_any_table_works_and_bad_files_are_named(tmp_path):
    tiny = FactorTable.load(write_tiny_table(tmp_path))
    assert tiny.n_objects == 2 * 1 * 2 * 2
    assert [tiny.object_id(**o.factors()) for o in tiny.all_objects] == list(range(8))
    assert tiny.sha256 is not None and len(tiny.sha256) == 64
    bad = tmp_path / "bad.toml"
    bad.write_text("[[shapes]]\nname = 'cube'\n[[appearances]]\ncolour = 'red'\n")
    with pytest.raises(FactorTableError, match="appearances\\[0\\] needs material"):
        FactorTable.load(bad)
    with pytest.raises(FactorTableError, match="not found"):
        FactorTable.load(tmp_path / "missing.toml")
