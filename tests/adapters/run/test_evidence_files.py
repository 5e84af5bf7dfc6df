"""Evidence pictures beside the samples: one PNG per view, named after a question id that any
benchmark may spell with characters a file name cannot hold."""

from PIL import Image

from adapters.run.folder import file_stem, write_evidence


def test_question_ids_become_distinct_safe_file_names():
    assert file_stem("val_Relative_Depth_12") == "val_Relative_Depth_12"
    odd = ["../etc/passwd", "a b", "a_b", "puzzle/3", "puzzle_3", ".hidden", "x" * 200]
    stems = [file_stem(i) for i in odd]
    assert len(set(stems)) == len(odd)
    assert all("/" not in s and " " not in s and not s.startswith(".") and len(s) <= 91 for s in stems)


def test_write_evidence_writes_each_view_and_returns_its_relative_path(tmp_path):
    views = {"depth": Image.new("RGB", (8, 6), (1, 2, 3)), "albedo": Image.new("RGB", (4, 4))}
    written = write_evidence(tmp_path, "puzzle/3", views)
    assert set(written) == {"depth", "albedo"}
    for name, relative in written.items():
        assert relative.startswith("evidence/") and relative.endswith(f".{name}.png")
        with Image.open(tmp_path / relative) as picture:
            assert picture.size == views[name].size
