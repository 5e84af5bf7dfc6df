
import numpy as np
import pytest

from adapters.datasets.combo.factors import FactorTable
from adapters.datasets.combo.render import ComboLiteRenderer, View


@pytest.fixture(scope="module")
def renderer():
    return ComboLiteRenderer(FactorTable.load(), image_size=48)


def test_deterministic_per_object_and_view(renderer):
    a = renderer.render(1234, view_seed=7)
    assert a.shape == (48, 48, 3) and a.dtype == np.uint8
    assert np.array_equal(a, ComboLiteRenderer(renderer.table, image_size=48).render(1234, view_seed=7))
    assert not np.array_equal(a, renderer.render(1234, view_seed=8))  # another viewpoint


@pytest.mark.parametrize("change", [
    {"primary_colour": "blue"}, {"primary_material": "metal"}, {"secondary_shape": "sphere", "pivot": "surface"},
    {"anchor": "side_face"}, {"secondary_material": "glass", "secondary_colour": "clear"},
])
def test_changing_one_factor_changes_the_image(renderer, change):
    t = renderer.table
    base = t.object(t.object_id(primary_shape="cube", anchor="top_face", secondary_shape="cylinder", pivot="base_cap",
                                primary_material="rubber", primary_colour="red", secondary_material="wood",
                                secondary_colour="wood"))
    factors = base.factors() | change
    other = t.object(t.object_id(**factors))
    view = View(yaw=0.6, pitch=0.4, roll=0.1, light=(0.3, 0.6, 0.74), zoom=0.8, background=120)
    a, b = renderer.render_object(base, view), renderer.render_object(other, view)
    assert np.abs(a.astype(int) - b.astype(int)).sum(axis=2).astype(bool).mean() > 0.01


def test_every_shape_draws_something(renderer):
    t = renderer.table
    view = View(yaw=0.3, pitch=0.5, roll=0.0, light=(0.0, 0.6, 0.8), zoom=0.8, background=120)
    for shape in t.shapes:
        anchor = next(a.name for a in t.primary_options if a.shape == shape)
        obj = t.object(t.object_id(primary_shape=shape, anchor=anchor, secondary_shape="cube", pivot="face_centre",
                                   primary_material="rubber", primary_colour="green", secondary_material="rubber",
                                   secondary_colour="green"))
        image = renderer.render_object(obj, view)
        green = (image[..., 1].astype(int) - image[..., 0]) > 40
        assert green.mean() > 0.1, shape
