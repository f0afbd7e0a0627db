"""Preparing pictures for a vision model: upright, shrunk, re-encoded without metadata."""

from __future__ import annotations

import io

import pytest
from PIL import ExifTags, Image, ImageDraw

from bot.agent.pictures import PictureError, picture_tokens, prepare_picture


def photo(width: int = 640, height: int = 480, exif: Image.Exif | None = None) -> bytes:
    """A JPEG that looks photographed (noise: thousands of colours)."""
    image = Image.effect_noise((width, height), 60).convert("RGB")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90, exif=exif if exif is not None else Image.Exif())
    return out.getvalue()


def gps_exif(orientation: int = 6) -> Image.Exif:
    exif = Image.Exif()
    exif[ExifTags.Base.Orientation] = orientation
    exif[ExifTags.Base.Make] = "PhoneMaker"
    exif[ExifTags.IFD.GPSInfo] = {
        ExifTags.GPS.GPSLatitudeRef: "N",
        ExifTags.GPS.GPSLatitude: (55.0, 45.0, 20.0),
        ExifTags.GPS.GPSLongitudeRef: "E",
        ExifTags.GPS.GPSLongitude: (37.0, 37.0, 4.0),
    }
    return exif


def screenshot(alpha: bool = False) -> bytes:
    image = Image.new("RGBA" if alpha else "RGB", (800, 600), (255, 255, 255, 0))
    draw = ImageDraw.Draw(image)
    for row in range(10):
        draw.text((20, 20 + row * 40), f"Error {row}: connection refused", fill=(200, 0, 0))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


class TestPrepare:
    def test_gps_and_exif_are_gone_and_the_photo_is_upright(self) -> None:
        raw = photo(640, 480, gps_exif(orientation=6))
        assert b"PhoneMaker" in raw

        picture = prepare_picture(raw)

        assert picture.mime == "image/jpeg"
        assert (picture.width, picture.height) == (480, 640)  # rotated per Orientation 6
        assert b"Exif" not in picture.data
        assert b"PhoneMaker" not in picture.data
        with Image.open(io.BytesIO(picture.data)) as out:
            assert out.size == (480, 640)
            assert not out.getexif()
            assert "exif" not in out.info
            assert "icc_profile" not in out.info

    def test_a_large_photo_is_scaled_to_fit_max_side(self) -> None:
        picture = prepare_picture(photo(3000, 1500), max_side=1024)

        assert (picture.width, picture.height) == (1024, 512)
        with Image.open(io.BytesIO(picture.data)) as out:
            assert out.size == (1024, 512)

    def test_a_phone_photo_is_sent_at_what_the_provider_looks_at(self) -> None:
        picture = prepare_picture(photo(4000, 3000))

        assert 0.75 * 768 <= min(picture.width, picture.height) <= 768
        assert picture.width * 3 == picture.height * 4
        assert picture_tokens(picture.width, picture.height, "high") <= picture_tokens(
            4000, 3000, "high"
        )

    def test_a_tall_screenshot_keeps_its_long_side_within_max_side(self) -> None:
        picture = prepare_picture(photo(1080, 2400))

        assert (picture.width, picture.height) == (768, 1707)

    def test_without_a_short_side_only_max_side_binds(self) -> None:
        picture = prepare_picture(photo(4000, 3000), short_side=None)

        assert 0.75 * 2048 <= picture.width <= 2048

    def test_a_screenshot_stays_png_and_transparency_too(self) -> None:
        assert prepare_picture(screenshot()).mime == "image/png"
        clear = prepare_picture(screenshot(alpha=True))
        assert clear.mime == "image/png"
        with Image.open(io.BytesIO(clear.data)) as out:
            assert out.mode == "RGBA"

    def test_png_text_chunks_and_icc_profile_are_dropped(self) -> None:
        from PIL import PngImagePlugin  # noqa: PLC0415

        info = PngImagePlugin.PngInfo()
        info.add_text("Location", "55.75N 37.61E")
        out = io.BytesIO()
        Image.new("RGB", (50, 50), "white").save(out, "PNG", pnginfo=info, icc_profile=b"\0" * 128)

        picture = prepare_picture(out.getvalue())

        assert b"55.75N" not in picture.data
        with Image.open(io.BytesIO(picture.data)) as clean:
            assert "icc_profile" not in clean.info
            assert "Location" not in clean.info

    def test_odd_modes_are_converted(self) -> None:
        out = io.BytesIO()
        Image.effect_noise((64, 64), 80).convert("CMYK").save(out, "JPEG")
        assert prepare_picture(out.getvalue()).mime == "image/jpeg"
        out = io.BytesIO()
        Image.new("I;16", (64, 64), 300).save(out, "PNG")
        assert prepare_picture(out.getvalue()).mime == "image/png"

    def test_a_pixel_bomb_is_refused_before_decoding(self) -> None:
        out = io.BytesIO()
        Image.new("1", (3_000, 3_000)).save(out, "PNG")

        with pytest.raises(PictureError) as caught:
            prepare_picture(out.getvalue(), max_pixels=1_000_000)
        assert caught.value.reason == "too_big"

    def test_not_a_picture_and_a_damaged_one(self) -> None:
        with pytest.raises(PictureError) as caught:
            prepare_picture(b"%PDF-1.7 not a picture")
        assert caught.value.reason == "not_image"
        with pytest.raises(PictureError) as caught:
            prepare_picture(photo()[:400])
        assert caught.value.reason == "unreadable"


class TestTokens:
    @pytest.mark.parametrize(
        ("width", "height", "detail", "tokens"),
        [
            (1024, 1024, "high", 765),  # OpenAI's own examples
            (2048, 4096, "high", 1105),
            (4096, 8192, "low", 85),
            (4000, 3000, "auto", 765),
            (300, 200, "high", 255),
        ],
    )
    def test_openai_rule(self, width: int, height: int, detail: str, tokens: int) -> None:
        assert picture_tokens(width, height, detail) == tokens
