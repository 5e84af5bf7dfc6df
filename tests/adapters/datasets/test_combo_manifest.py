import cv2
import numpy as np
import pytest

from adapters.datasets.combo.factors import FactorTable
from adapters.datasets.combo.manifest import ComboManifestError, read_manifest


@pytest.fixture(scope="module")
def table():
    return FactorTable.load()


def _folder(tmp_path, rows, header="path,object_id,view", make_files=True):
    for row in rows:
        path = tmp_path / row.split(",")[0]
        if make_files and not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(path), np.full((8, 8, 3), 100, np.uint8))
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("\n".join([header, *rows]) + "\n")
    return manifest


def test_reads_ids_and_factor_columns(tmp_path, table):
    m = read_manifest(_folder(tmp_path, ["a/0.png,5,0", "a/1.png,5,1", "b/0.png,9503,0"]), table)
    assert m.object_ids == [5, 9503] and [im.view for im in m.views(5)] == [0, 1]
    assert m.load(m.views(5)[0]).shape == (8, 8, 3)
    f = table.object(42).factors()
    header = "path,view," + ",".join(f)
    m2 = read_manifest(_folder(tmp_path, ["c.png,3," + ",".join(f.values())], header=header), table)
    assert m2.object_ids == [42]


@pytest.mark.parametrize("rows, message", [
    (["a.png,9504,0"], "row 2: object id 9504 is not in the factor table"),
    (["a.png,x,0"], "row 2: object_id 'x' is not an integer"),
    (["a.png,1,0", "b.png,1,0"], "row 3: object 1 view 0 is already listed in row 2"),
    (["a.png,1,0", "a.png,2,0"], "row 3: image .*a.png is already listed in row 2"),
])
def test_bad_rows_are_named(tmp_path, table, rows, message):
    with pytest.raises(ComboManifestError, match=message):
        read_manifest(_folder(tmp_path, rows), table)


def test_missing_file_and_columns(tmp_path, table):
    manifest = _folder(tmp_path, ["gone.png,1,0"], make_files=False)
    with pytest.raises(ComboManifestError, match="row 2: image file .*gone.png does not exist"):
        read_manifest(manifest, table)
    with pytest.raises(ComboManifestError, match="need path, view and either object_id"):
        read_manifest(_folder(tmp_path, ["a.png,1"], header="path,view"), table)
    with pytest.raises(ComboManifestError, match="not found"):
        read_manifest(tmp_path / "nope.csv", table)
