#!/usr/bin/env python3
"""Opens and makes sealed kiosk records with pycose, an independent COSE implementation.

    open KEY.pem RECORD.cose [KIOSK-CERT.pem]
        Decrypts a record (COSE_Encrypt, ECDH-ES + HKDF-256, A256GCM) with the centre's sealing
        key and prints the plaintext (the kiosk's COSE_Sign1) as hex. With the kiosk's
        certificate, also checks the kiosk's ES256 signature and prints "signature ok".
    seal CERT.pem PLAINTEXT-FILE OUT.cose [KID-HEX]
        Encrypts a file's bytes to the public key of CERT.pem the same way, the recipient named
        by the key id given (default "pycose").

Needs pycose 1.1 (with cbor2 < 6) and cryptography. Exit status 0 on success, 1 otherwise.
"""
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from pycose.algorithms import A256GCM, EcdhEsHKDF256
from pycose.headers import IV, KID, Algorithm, EphemeralKey, StaticKey
from pycose.keys import CoseKey, EC2Key
from pycose.keys.curves import P256
from pycose.keys.keyparam import EC2KpD
from pycose.messages import CoseMessage, EncMessage, Sign1Message
from pycose.messages.recipient import DirectKeyAgreement


def public_key_from_certificate(path):
    certificate = x509.load_pem_x509_certificate(open(path, "rb").read())
    pem = certificate.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return CoseKey.from_pem_public_key(pem)


def open_record(key_path, record_path, kiosk_certificate=None):
    key = CoseKey.from_pem_private_key(open(key_path).read())
    message = CoseMessage.decode(open(record_path, "rb").read())
    if not isinstance(message, EncMessage) or len(message.recipients) != 1:
        print("not a COSE_Encrypt with one recipient", file=sys.stderr)
        return 1
    recipient = message.recipients[0]
    recipient.key = key
    plaintext = message.decrypt(recipient)
    print(plaintext.hex())
    if kiosk_certificate:
        signed = CoseMessage.decode(plaintext)
        signed.key = public_key_from_certificate(kiosk_certificate)
        if not isinstance(signed, Sign1Message) or not signed.verify_signature():
            print("the kiosk signature does not verify", file=sys.stderr)
            return 1
        print("signature ok")
    return 0


def seal(certificate_path, plaintext_path, out_path, kid_hex=None):
    static = public_key_from_certificate(certificate_path)
    kid = bytes.fromhex(kid_hex) if kid_hex else b"pycose"
    # A fresh ephemeral key; its public part goes in the recipient's unprotected header.
    ephemeral = EC2Key.generate_key(crv=P256)
    public = dict(ephemeral)
    del public[EC2KpD]
    recipient = DirectKeyAgreement(phdr={Algorithm: EcdhEsHKDF256}, uhdr={KID: kid, EphemeralKey: public})
    recipient.key = ephemeral
    recipient.local_attrs = {StaticKey: static}
    message = EncMessage(
        phdr={Algorithm: A256GCM}, uhdr={IV: os.urandom(12)}, payload=open(plaintext_path, "rb").read(),
        recipients=[recipient])
    open(out_path, "wb").write(message.encode())
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "open":
        return open_record(*argv[1:4])
    if len(argv) in (4, 5) and argv[0] == "seal":
        return seal(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as error:  # a refusal of the input, reported as such
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
