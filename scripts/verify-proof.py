#!/usr/bin/env python3
"""Checks mdocverify proof bundles and run manifests WITHOUT mdocverify: an auditor's check.

Uses only the Python packages cbor2 and cryptography (pip install cbor2 cryptography).
For each file: a tagged COSE_Sign1 (RFC 9052, tag 18), ES256, the signer certificate in x5chain
(label 33); the signature is verified over Sig_structure = ["Signature1", protected, h'', payload].
For a run manifest (content type application/vnd.mdocverify.run-manifest+cbor) every listed
proof is looked up in <out>/proofs/<run>/ (or <out>/proofs/ for earlier outputs), its SHA-256 compared, and the Merkle root recomputed
(leaves SHA-256(0x00 || h), nodes SHA-256(0x01 || l || r), an odd last node promoted).

usage: scripts/verify-proof.py FILE.cose [FILE.cose ...]      exit 1 if anything fails
"""
import hashlib, os, re, sys
import cbor2
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

HASHES = {-7: hashes.SHA256(), -35: hashes.SHA384(), -36: hashes.SHA512()}


def open_sign1(data):
    obj = cbor2.loads(data)
    if not (isinstance(obj, cbor2.CBORTag) and obj.tag == 18):
        raise ValueError("not a tagged COSE_Sign1")
    protected, unprotected, payload, sig = obj.value
    header = cbor2.loads(protected)
    cert = x509.load_der_x509_certificate(unprotected[33])
    half = len(sig) // 2
    der = encode_dss_signature(int.from_bytes(sig[:half], "big"), int.from_bytes(sig[half:], "big"))
    tbs = cbor2.dumps(["Signature1", protected, b"", payload])
    cert.public_key().verify(der, tbs, ec.ECDSA(HASHES[header[1]]))
    return header, cbor2.loads(payload), cert


def merkle_root(leaves):
    if not leaves:
        return hashlib.sha256(b"").digest()
    level = [hashlib.sha256(b"\x00" + h).digest() for h in leaves]
    while len(level) > 1:
        level = [hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest() if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return level[0]


def main(paths):
    ok = True
    for path in paths:
        try:
            header, body, cert = open_sign1(open(path, "rb").read())
        except Exception as error:  # noqa: BLE001
            print(f"FAIL {path}: {error}")
            ok = False
            continue
        signer = cert.subject.rfc4514_string()
        if header.get(3) == "application/vnd.mdocverify.run-manifest+cbor":
            proofs_root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))), "proofs")
            run_folder = os.path.join(proofs_root, body["runId"])
            # <out>/proofs/<run>/ since proofs are kept per run; <out>/proofs/ in earlier outputs.
            safe = re.fullmatch(r"[A-Za-z0-9._-]{1,200}", body["runId"]) and body["runId"] not in (".", "..")
            proofs_dir = run_folder if safe and os.path.isdir(run_folder) else proofs_root
            problems = []
            for code, digest in body["proofs"]:
                proof = os.path.join(proofs_dir, f"{code}.cose")
                if not os.path.exists(proof):
                    problems.append(f"missing {code}")
                elif hashlib.sha256(open(proof, "rb").read()).digest() != digest:
                    problems.append(f"altered {code}")
            if merkle_root([d for _, d in body["proofs"]]) != body["merkleRoot"]:
                problems.append("Merkle root mismatch")
            if problems:
                ok = False
                print(f"FAIL run {body['runId']}: " + "; ".join(problems))
            else:
                print(f"OK   run {body['runId']}: {body['proofCount']} proofs, Merkle root matches, signed by {signer}")
        else:
            print(f"OK   proof {body['referenceCode']}: verdict {body['verdict']}, {len(body['checks'])} checks, signed by {signer}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
