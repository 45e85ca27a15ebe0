"""Schemathesis hooks for the intake's application/cbor request bodies (docs/openapi.yaml).

    PYTHONPATH=scripts SCHEMATHESIS_HOOKS=schemathesis_cbor schemathesis run docs/openapi.yaml --url URL
"""
import schemathesis


@schemathesis.serializer("application/cbor")
def cbor(ctx, value):
    """A generated binary body is sent as its bytes."""
    return value if isinstance(value, (bytes, bytearray)) else str(value).encode()
