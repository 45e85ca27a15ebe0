#!/usr/bin/env python3
"""Renders the image fixtures of Tests/MdocImagingTests/Fixtures.

Requires Python 3.9+ with two packages from PyPI:

    pip install qrcode pillow

Run from the repository root:

    python3 scripts/make-qr-fixtures.py

Everything is deterministic (seeded `random`, no clock), so re-running it gives the same images
for the same Pillow/libjpeg/zlib versions. The committed files are what the tests use; the script
documents how they were made and regenerates them.

Engagement QR fixtures (ISO/IEC 18013-5 §8.2.2.3: the QR code holds "mdoc:" + base64url of
DeviceEngagement; the text is the Annex D URI in
Tests/MdocTestSupport/Vectors/iso18013-5/device_engagement_qr_uri.txt):
  annexd-qr.png         the code alone, 600x600
  annexd-qr-q60.jpg     the same, JPEG quality 60
  annexd-photo.jpg      3000x4000 photo-like scene (textured gradients, shapes) with the code
                        pasted small (~350 px) and rotated 17 degrees; JPEG q85, EXIF orientation 1
  two-codes.png         an https://example.com code and the mdoc code side by side
  not-mdoc.png          only an https://example.com code
  no-qr.jpg             a photo-like scene without any code

Document-scan fixtures (inputs the re-encoder must process correctly):
  scan-progressive.jpg  progressive JPEG with four colour patches (320x240) above a 40-row band
                        of random patch colours (the same picture, 320x280, for the next three)
  scan-cmyk.jpg         CMYK JPEG (Pillow writes Adobe-inverted CMYK with an Adobe APP14 marker)
  scan-gray.jpg         greyscale JPEG
  scan-exif6.jpg        JPEG stored sideways with EXIF orientation 6 (and Make/GPS tags), red
                        block in the stored top-left corner
  scan-16bit.png        16-bit RGB PNG (written by hand below: Pillow cannot write 16-bit RGB)
  scan-palette-alpha.png palette PNG with a tRNS chunk: transparent left half
"""

import io
import math
import os
import random
import struct
import zlib

import qrcode
from PIL import Image, ImageDraw, ImageFilter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "MdocImagingTests", "Fixtures")
URI_PATH = os.path.join(ROOT, "Tests", "MdocTestSupport", "Vectors", "iso18013-5",
                        "device_engagement_qr_uri.txt")
MAX_BYTES = 1_500_000

# Colour patches used by the scan fixtures: (name, RGB), laid out left to right, top to bottom.
PATCHES = [("red", (220, 30, 30)), ("green", (30, 180, 60)),
           ("blue", (30, 60, 200)), ("white", (255, 255, 255))]


def qr_image(text, box_size):
    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M,
                         box_size=box_size, border=4)
    code.add_data(text.encode("ascii"), optimize=0)
    code.make(fit=True)
    return code.make_image(fill_color="black", back_color="white").get_image().convert("RGB")


def on_canvas(image, size):
    canvas = Image.new("RGB", size, "white")
    canvas.paste(image, ((size[0] - image.width) // 2, (size[1] - image.height) // 2))
    return canvas


def noise(size, rng):
    return Image.frombytes("L", size, rng.randbytes(size[0] * size[1]))


def photo_scene(size, rng):
    """Smooth colour gradients, low-frequency texture, light grain and a few shapes."""
    w, h = size
    channels = []
    for angle in (0, 70, 140):
        gradient = Image.linear_gradient("L").rotate(angle, resample=Image.BICUBIC, expand=False)
        channels.append(gradient.resize(size, Image.BICUBIC))
    scene = Image.merge("RGB", channels)
    # Low-frequency texture: coarse noise blown up (cheap for JPEG, looks like surfaces).
    coarse = noise((w // 40, h // 40), rng).resize(size, Image.BICUBIC)
    scene = Image.blend(scene, Image.merge("RGB", [coarse] * 3), 0.25)
    draw = ImageDraw.Draw(scene)
    for _ in range(14):
        x0, y0 = rng.randrange(w), rng.randrange(h)
        x1, y1 = x0 + rng.randrange(w // 40, w // 3), y0 + rng.randrange(h // 40, h // 3)
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        if rng.random() < 0.5:
            draw.ellipse([x0, y0, x1, y1], fill=colour)
        else:
            draw.rectangle([x0, y0, x1, y1], fill=colour)
    scene = scene.filter(ImageFilter.GaussianBlur(1.2))
    # Fine sensor grain, low amplitude.
    grain = noise(size, rng)
    scene = Image.blend(scene, Image.merge("RGB", [grain] * 3), 0.04)
    return scene


def save(image, name, **params):
    path = os.path.join(OUT, name)
    image.save(path, **params)
    size = os.path.getsize(path)
    assert size < MAX_BYTES, f"{name} is {size} bytes, over {MAX_BYTES}"
    print(f"{name}: {image.width}x{image.height} {size} bytes")


def exif_bytes(orientation, gps=False):
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "mdocverify-fixture"  # Make
    if gps:
        # GPSInfo IFD: latitude 50 N; proves the re-encoder drops every EXIF tag.
        exif.get_ifd(0x8825).update({1: "N", 2: (50.0, 5.0, 0.0)})
    return exif.tobytes()


def patches_image(size, rng, band=40):
    """Four colour patches filling `size`, above a band of random colours `band` rows high
    (the band makes the file large enough that fitting it under a test limit still leaves
    room for a JPEG)."""
    w, h = size
    image = Image.new("RGB", (w, h + band), "white")
    draw = ImageDraw.Draw(image)
    for index, (_, colour) in enumerate(PATCHES):
        col, row = index % 2, index // 2
        draw.rectangle([col * w // 2, row * h // 2, (col + 1) * w // 2 - 1, (row + 1) * h // 2 - 1],
                       fill=colour)
    for y in range(h, h + band):
        for x in range(0, w, 4):
            colour = PATCHES[rng.randrange(len(PATCHES))][1]
            draw.rectangle([x, y, x + 3, y], fill=colour)
    return image


def png_chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def write_png16_rgb(image, path):
    """A 16-bit RGB PNG: each 8-bit sample v becomes v * 257 (so it decodes back to v)."""
    w, h = image.size
    pixels = image.load()
    raw = bytearray()
    for y in range(h):
        raw.append(0)  # filter type None
        for x in range(w):
            for v in pixels[x, y]:
                raw += struct.pack(">H", v * 257)
    data = (b"\x89PNG\r\n\x1a\n"
            + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(bytes(raw), 9))
            + png_chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(data)
    print(f"{os.path.basename(path)}: {w}x{h} {len(data)} bytes")


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(URI_PATH, encoding="ascii") as f:
        uri = f.read().strip()
    assert uri.startswith("mdoc:")
    rng = random.Random(18013)

    # Engagement QR fixtures.
    code = qr_image(uri, 10)
    save(on_canvas(code, (600, 600)), "annexd-qr.png")
    save(on_canvas(code, (600, 600)), "annexd-qr-q60.jpg", quality=60)

    photo = photo_scene((3000, 4000), rng)
    small = qr_image(uri, 6)  # 57 modules x 6 px = 342 px
    card = Image.new("RGBA", (small.width + 40, small.height + 40), (255, 255, 255, 255))
    card.paste(small, (20, 20))
    turned = card.rotate(17, resample=Image.BICUBIC, expand=True, fillcolor=(0, 0, 0, 0))
    photo.paste(turned, (1900, 2500), turned)
    save(photo, "annexd-photo.jpg", quality=85, exif=exif_bytes(1))

    other = qr_image("https://example.com", 10)
    pair = Image.new("RGB", (1200, 600), "white")
    pair.paste(on_canvas(other, (600, 600)), (0, 0))
    pair.paste(on_canvas(code, (600, 600)), (600, 0))
    save(pair, "two-codes.png")
    save(on_canvas(other, (600, 600)), "not-mdoc.png")
    save(photo_scene((1200, 1600), rng), "no-qr.jpg", quality=85)

    # Document-scan fixtures.
    patches = patches_image((320, 240), rng)
    save(patches, "scan-progressive.jpg", quality=92, progressive=True)
    save(patches.convert("CMYK"), "scan-cmyk.jpg", quality=92)
    save(photo_scene((320, 240), rng).convert("L"), "scan-gray.jpg", quality=92)
    # Stored sideways: 240 wide, 320 high, red block top-left; orientation 6 turns it upright
    # to 320x240 with the red block top-right.
    sideways = Image.new("RGB", (240, 320), "white")
    ImageDraw.Draw(sideways).rectangle([0, 0, 79, 79], fill=(220, 30, 30))
    save(sideways, "scan-exif6.jpg", quality=92, exif=exif_bytes(6, gps=True))
    write_png16_rgb(patches, os.path.join(OUT, "scan-16bit.png"))
    palette = patches.convert("P", palette=Image.ADAPTIVE, colors=8)
    # Make the left half of the patches transparent: a fresh palette index with alpha 0.
    lut = palette.getpalette()[: 3 * 8]
    transparent_index = len(lut) // 3
    palette.putpalette(lut + [0, 0, 0])
    draw = ImageDraw.Draw(palette)
    draw.rectangle([0, 0, 159, 239], fill=transparent_index)
    alpha = [255] * transparent_index + [0]
    save(palette, "scan-palette-alpha.png", transparency=bytes(alpha))


if __name__ == "__main__":
    main()
