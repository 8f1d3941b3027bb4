"""Small media files made in memory for the upload tests (engine and page alike)."""
from __future__ import annotations

import io
import wave


def png_bytes(array) -> bytes:
    """A PNG file of this uint8 array."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, format="PNG")
    return buffer.getvalue()


def wav_bytes(samples: bytes, rate: int = 8000, channels: int = 1, width: int = 2) -> bytes:
    """A WAV file holding these raw sample bytes."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(width)
        writer.setframerate(rate)
        writer.writeframes(samples)
    return buffer.getvalue()
