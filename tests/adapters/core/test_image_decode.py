"""Question images decode to the 8-bit RGB picture a viewer shows, whatever mode the file holds:
deeper samples scaled (never clipped), transparency over white, the first frame, the EXIF
orientation applied; pixels with no agreed 8-bit rendering are refused by name."""

import io
import json
import struct

import cv2
import numpy as np
import pytest
from PIL import Image

from adapters.core.image_decode import UnreadablePixels, to_rgb8
from adapters.core.questions import ImageDecodeError, decode_image

RED, BLUE, WHITE, BLACK = (255, 0, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0)


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def row(mode: str, values) -> Image.Image:
    """A one-row image of `mode` holding `values` left to right."""
    image = Image.new(mode, (len(values), 1))
    for x, value in enumerate(values):
        image.putpixel((x, 0), value)
    return image


def grey16(values, dtype=np.uint16) -> Image.Image:
    return Image.fromarray(np.array([values], dtype=dtype))


def palette(transparent_index=None) -> bytes:
    image = Image.new("P", (2, 1))
    image.putpalette([255, 0, 0, 0, 0, 255] + [0] * 762)
    image.putpixel((0, 0), 0)
    image.putpixel((1, 0), 1)
    return encoded(image, "PNG", **({"transparency": transparent_index} if transparent_index is not None else {}))


def cv2_png(bgr_or_bgra: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".png", bgr_or_bgra)
    assert ok
    return data.tobytes()


def tiff_12_bit(values, width: int) -> bytes:
    """A grey TIFF of 12-bit samples (packed, most significant bit first), written by hand: PIL
    reads these into a 16-bit container without scaling them."""
    bits = "".join(format(v, "012b") for v in values)
    bits += "0" * (-len(bits) % 8)
    data = int(bits, 2).to_bytes(len(bits) // 8, "big")
    height = len(values) // width
    entries = [(256, width), (257, height), (258, 12), (259, 1), (262, 1), (273, None), (277, 1), (278, height),
               (279, len(data))]
    data_offset = 8 + 2 + 12 * len(entries) + 4
    out = b"II*\x00" + struct.pack("<IH", 8, len(entries))
    for tag, value in entries:
        out += struct.pack("<HHII", tag, 4, 1, data_offset if value is None else value)  # LONG values
    return out + struct.pack("<I", 0) + data


def animated_gif() -> bytes:
    first, second = Image.new("RGB", (2, 2), RED), Image.new("RGB", (2, 2), BLUE)
    return encoded(first, "GIF", save_all=True, append_images=[second])


# (what the file holds, its bytes, the mode PIL opens it as, the RGB pixels left to right)
CASES = [
    ("1-bit PNG", lambda: encoded(row("1", [0, 1]), "PNG"), "1", [BLACK, WHITE]),
    ("8-bit grey PNG", lambda: encoded(row("L", [0, 77, 255]), "PNG"), "L", [BLACK, (77,) * 3, WHITE]),
    ("grey + alpha PNG", lambda: encoded(row("LA", [(0, 255), (0, 0), (0, 128)]), "PNG"), "LA",
     [BLACK, WHITE, (127,) * 3]),
    ("palette PNG", lambda: palette(), "P", [RED, BLUE]),
    ("palette PNG, entry 1 transparent", lambda: palette(transparent_index=1), "P", [RED, WHITE]),
    ("palette + alpha TIFF", lambda: encoded(row("PA", [(0, 255), (0, 0)]), "TIFF"), "PA", [BLACK, WHITE]),
    ("RGB PNG", lambda: encoded(row("RGB", [RED, (10, 20, 30)]), "PNG"), "RGB", [RED, (10, 20, 30)]),
    ("RGBA PNG: transparent black shows white", lambda: encoded(row("RGBA", [(255, 0, 0, 255), (0, 0, 0, 0)]), "PNG"),
     "RGBA", [RED, WHITE]),
    ("RGB PNG with a transparent colour (tRNS)",
     lambda: encoded(row("RGB", [RED, BLUE]), "PNG", transparency=BLUE), "RGB", [RED, WHITE]),
    ("CMYK TIFF", lambda: encoded(row("CMYK", [(0, 255, 255, 0), (0, 0, 0, 255)]), "TIFF"), "CMYK", [RED, BLACK]),
    ("CMYK JPEG", lambda: encoded(Image.new("CMYK", (8, 8), (0, 255, 255, 0)), "JPEG", quality=100), "CMYK",
     [RED] * 8),
    # JPEG's YCbCr -> RGB: R = Y + 1.402 (Cr - 128), G = Y - 0.344 (Cb - 128) - 0.714 (Cr - 128), ...
    ("YCbCr TIFF", lambda: encoded(row("YCbCr", [(76, 85, 255), (255, 128, 128)]), "TIFF"), "YCbCr",
     [(254, 0, 0), WHITE]),
    # CIELAB L*=100 and L*=0 (a*, b* = 0 stored as 128): white and black
    ("CIELAB TIFF", lambda: encoded(row("LAB", [(255, 128, 128), (0, 128, 128)]), "TIFF"), "LAB", [WHITE, BLACK]),
    ("16-bit grey PNG", lambda: encoded(grey16([0, 256, 32768, 65535]), "PNG"), "I;16",
     [BLACK, (1,) * 3, (128,) * 3, WHITE]),
    ("16-bit grey PNG, value 300 transparent",
     lambda: encoded(grey16([300, 40000]), "PNG", transparency=300), "I;16", [WHITE, (156,) * 3]),
    ("16-bit grey TIFF, little-endian", lambda: encoded(grey16([0, 256, 65535]), "TIFF"), "I;16",
     [BLACK, (1,) * 3, WHITE]),
    ("16-bit grey TIFF, big-endian", lambda: encoded(grey16([0, 256, 65535], ">u2"), "TIFF"), "I;16B",
     [BLACK, (1,) * 3, WHITE]),
    ("12-bit grey TIFF", lambda: tiff_12_bit([0, 4095, 2048, 100], 4), "I;16",
     [BLACK, WHITE, (128,) * 3, (6,) * 3]),
    ("16-bit PGM (maxval 65535)", lambda: encoded(grey16([0, 256, 32768, 65535]), "PPM"), "I",
     [BLACK, (1,) * 3, (128,) * 3, WHITE]),
    ("float TIFF in [0, 1]", lambda: encoded(row("F", [0.0, 0.25, 0.5, 1.0]), "TIFF"), "F",
     [BLACK, (64,) * 3, (128,) * 3, WHITE]),
    # cv2 writes 16-bit colour PNGs (BGR order): PIL keeps the top byte of each sample
    ("48-bit RGB PNG", lambda: cv2_png(np.array([[[65535, 256, 0], [3000, 40000, 60000]]], np.uint16)), "RGB",
     [(0, 1, 255), (234, 156, 11)]),
    ("64-bit RGBA PNG, second pixel transparent",
     lambda: cv2_png(np.array([[[0, 0, 65535, 65535], [65535, 0, 0, 0]]], np.uint16)), "RGBA", [RED, WHITE]),
    ("animated GIF: the first frame", animated_gif, "P", [RED, RED]),
]


@pytest.mark.parametrize("name, data, mode, pixels", CASES, ids=[case[0] for case in CASES])
def test_every_mode_decodes_to_the_rgb_a_viewer_shows(name, data, mode, pixels):
    data = data()
    with Image.open(io.BytesIO(data)) as opened:
        assert opened.mode == mode  # the case covers the mode it names
    image = decode_image(data, idx="val_Jigsaw_1", column="image_1")
    assert image.mode == "RGB"
    decoded = np.asarray(image)[0, :len(pixels)].astype(int)
    assert np.abs(decoded - np.array(pixels)).max() <= 1, decoded.tolist()


@pytest.mark.parametrize("name, data, says", [
    ("32-bit integer TIFF", lambda: encoded(grey16([0, 70000], np.int32), "TIFF"), "mode I"),
    ("float TIFF outside [0, 1]", lambda: encoded(row("F", [0.0, 2.5]), "TIFF"), "mode F (32-bit float) outside [0, 1]"),
    ("float TIFF with NaN", lambda: encoded(row("F", [0.0, float("nan")]), "TIFF"), "NaN"),
])
def test_pixels_without_an_agreed_8_bit_rendering_are_refused_by_name(name, data, says):
    with pytest.raises(ImageDecodeError) as error:
        decode_image(data(), idx="val_Jigsaw_7", column="image_2")
    message = str(error.value)
    assert message.startswith("val_Jigsaw_7: image_2 has pixels of") and says in message
    assert "convert it to an 8-bit RGB PNG or JPEG" in message


def test_modes_no_file_format_stores_convert_or_are_refused():
    assert to_rgb8(row("HSV", [(0, 255, 255)])).getpixel((0, 0)) == RED
    assert to_rgb8(row("RGBX", [(1, 2, 3, 0)])).getpixel((0, 0)) == (1, 2, 3)
    with pytest.raises(UnreadablePixels, match="mode La"):
        to_rgb8(Image.new("La", (1, 1)))


def test_a_16_bit_grey_jigsaw_is_not_read_as_white():
    """A 16-bit grey picture of a gradient keeps its gradient (it used to clip to all white)."""
    ramp = np.tile(np.linspace(0, 65535, 64).astype(np.uint16), (8, 1))
    image = np.asarray(decode_image(encoded(Image.fromarray(ramp), "PNG"), idx="val_Jigsaw_1", column="image_1"))
    assert image[0, 0, 0] == 0 and image[0, -1, 0] == 255
    assert np.array_equal(image[..., 0], (ramp >> 8).astype(np.uint8))


def test_the_stored_codec_is_still_recorded_for_dire():
    assert decode_image(encoded(Image.new("RGB", (4, 4)), "JPEG"), idx="i", column="c").format == "JPEG"
    assert decode_image(encoded(grey16([1, 2]), "PNG"), idx="i", column="c").format == "PNG"


# ---- EXIF orientation: images are read in the displayed frame ----

def sideways(displayed: np.ndarray, orientation: int = 6) -> bytes:
    """A PNG holding `displayed` stored as a camera stores it, with the EXIF tag that turns it back:
    orientation 6 means 'rotate 90 degrees clockwise to display', so the stored pixels are the
    displayed ones turned 90 degrees anticlockwise."""
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encoded(Image.fromarray(np.rot90(displayed)), "PNG", exif=exif)


def test_exif_orientation_6_is_decoded_upright():
    displayed = np.zeros((30, 50, 3), np.uint8)
    displayed[2:6, 40:46] = RED  # a red patch top right, as a person sees the photo
    image = decode_image(sideways(displayed), idx="val_Relative_Depth_1", column="image_1")
    assert image.size == (50, 30)
    assert np.array_equal(np.asarray(image), displayed)


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")
def test_a_damaged_exif_block_leaves_the_stored_frame():
    data = encoded(Image.new("RGB", (6, 4), RED), "JPEG", exif=b"Exif\x00\x00MM\x00*garbage")
    assert decode_image(data, idx="i", column="c").size == (6, 4)


def test_a_markers_file_in_the_displayed_frame_samples_the_points_a_person_sees(tmp_path):
    """Relative_Reflectance with retinex and `--markers FILE`: A sits on the dark half and B on the
    bright half of the picture as displayed; in the stored (sideways) frame the same coordinates
    fall on the opposite halves, so reading the stored frame answers B."""
    from adapters.datasets.blink.writer import BlinkRow, write_blink_folder
    from adapters.run.runner import RunConfig, run

    displayed = np.full((80, 80, 3), 200, np.uint8)
    displayed[:, :40] = 40  # left half dark
    markers = tmp_path / "markers.json"
    markers.write_text(json.dumps({"val_Relative_Reflectance_1": {"image_1": {"A": [20, 20], "B": [60, 60]}}}))
    write_blink_folder(tmp_path / "blink", [BlinkRow(
        "Relative_Reflectance", 1, "Which point has darker surface color, or the colors is about the same?",
        ("A is darker", "B is darker", "About the same"), "A", [sideways(displayed)])])
    run(RunConfig(str(tmp_path / "run"), blink_root=str(tmp_path / "blink"), tasks=["Relative_Reflectance"],
                  specialist=["retinex"], markers=str(markers), progress=False))
    (sample,) = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert sample["status"] == "ok" and sample["decision"]["pred"] == "A" and sample["correct"] is True
