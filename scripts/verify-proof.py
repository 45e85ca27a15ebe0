#!/usr/bin/env python3
"""Checks mdocverify proofs, run files and run manifests WITHOUT mdocverify: an auditor's check.

Uses only the Python packages cbor2 and cryptography (Debian: python3-cbor2 python3-cryptography).

A proof or manifest is a COSE_Sign1 (RFC 9052, tag 18), ES256, its signer's certificate in x5chain
(label 33); the signature is verified over Sig_structure = ["Signature1", protected, h'', payload].
A valid signature only says the bytes match the certificate they carry: who signed is checked
against --cert (that exact certificate: the processor's <out>/keys/processor-cert.pem, or the one
its operator gave with --signing-cert) or --processor-trust DIR (a folder of trusted processor
certificates: the signer is one of them, or is issued by one through x5chain; validity dates are
not checked).

A run file (<out>/proofs/<run>.cbor-seq) is a CBOR sequence (RFC 8742) of proofs; its manifest
(<out>/runs/<run>.cose) lists every proof (reference code, SHA-256, offset, length) sorted by
reference code under a Merkle root (leaves SHA-256(0x00 || h), nodes SHA-256(0x01 || l || r), an
odd last node promoted) and the run file's committed length. Altered, missing, duplicated,
reordered and unlisted proofs, unreadable bytes and a torn tail are each reported.

usage: scripts/verify-proof.py [--cert CERT | --processor-trust DIR] PATH [PATH ...]
  PATH: a proof (.cose), a run manifest (runs/<run>.cose), a run file (.cbor-seq) or an output folder.
exit: 0 everything verifies and the signer is trusted; 1 something does not verify or the signer is
not the trusted one; 2 usage error; 3 every signature is valid but the signer was not checked.
"""
import glob, hashlib, io, os, re, sys
import cbor2
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

PROOF = "application/vnd.mdocverify.proof+cbor"
MANIFEST = "application/vnd.mdocverify.run-manifest+cbor"
HASHES = {-7: hashes.SHA256(), -35: hashes.SHA384(), -36: hashes.SHA512()}
MAX_RECORD_BYTES = 16 << 20  # as mdocverify's run file reader
CODE = re.compile(r"[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}")
VERIFIED, UNCHECKED, INVALID = 0, 3, 1


class Usage(Exception):
    pass


def der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


def load_certs(path):
    data = open(path, "rb").read()
    blocks = re.findall(rb"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", data, re.S)
    return [x509.load_pem_x509_certificate(b) for b in blocks] if blocks else [x509.load_der_x509_certificate(data)]


def issued_by(cert, issuer):
    """Whether issuer (a CA) signed cert."""
    if cert.issuer != issuer.subject:
        return False
    try:
        if not issuer.extensions.get_extension_for_class(x509.BasicConstraints).value.ca:
            return False
    except x509.ExtensionNotFound:
        return False
    key = issuer.public_key()
    try:
        if isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(cert.signature_hash_algorithm))
        elif isinstance(key, rsa.RSAPublicKey):
            key.verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(), cert.signature_hash_algorithm)
        elif isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
            key.verify(cert.signature, cert.tbs_certificate_bytes)
        else:
            return False
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


class Policy:
    def __init__(self, cert=None, trust=None):
        self.mode, self.known = "none", {}
        if cert:
            self.mode, self.trusted = "cert", [load_certs(cert)[0]]
        elif trust:
            self.mode, self.trusted = "trust", []
            for name in sorted(os.listdir(trust)):
                path = os.path.join(trust, name)
                if not name.startswith(".") and os.path.isfile(path):
                    self.trusted += load_certs(path)
            if not self.trusted:
                raise Usage(f"{trust} holds no certificate")

    def status(self, cert, intermediates):
        """('not checked',) or ('trusted', subject) or ('untrusted', reason)."""
        if self.mode == "none":
            return ("not checked",)
        key = der(cert)
        if key not in self.known:
            self.known[key] = self._judge(cert, intermediates)
        return self.known[key]

    def _judge(self, cert, intermediates):
        anchors = {der(c) for c in self.trusted}
        if der(cert) in anchors:
            return ("trusted", cert.subject.rfc4514_string())
        if self.mode == "cert":
            return ("untrusted", "its certificate is not the trusted one")
        current = cert
        for _ in range(8):
            issuer = next((c for c in self.trusted + intermediates if issued_by(current, c)), None)
            if issuer is None:
                break
            if der(issuer) in anchors:
                return ("trusted", cert.subject.rfc4514_string())
            current = issuer
        return ("untrusted", "its certificate does not chain to a trusted processor certificate")


def open_sign1(obj):
    """(content type, payload, certificate, intermediates, signature valid) of a decoded COSE_Sign1."""
    if isinstance(obj, cbor2.CBORTag):
        if obj.tag != 18:
            raise ValueError("not a COSE_Sign1")
        obj = obj.value
    if not (isinstance(obj, list) and len(obj) == 4):
        raise ValueError("not a COSE_Sign1")
    protected, unprotected, payload, sig = obj
    header = cbor2.loads(protected) if protected else {}
    chain = unprotected.get(33)
    chain = [chain] if isinstance(chain, bytes) else list(chain or [])
    if not chain:
        raise ValueError("no signer certificate in x5chain")
    cert = x509.load_der_x509_certificate(chain[0])
    intermediates = [x509.load_der_x509_certificate(c) for c in chain[1:]]
    valid = False
    try:
        half = len(sig) // 2
        signature = encode_dss_signature(int.from_bytes(sig[:half], "big"), int.from_bytes(sig[half:], "big"))
        tbs = cbor2.dumps(["Signature1", protected, b"", payload])
        cert.public_key().verify(signature, tbs, ec.ECDSA(HASHES[header[1]]))
        valid = True
    except (InvalidSignature, KeyError, ValueError, TypeError, AttributeError):
        pass
    return header.get(3), cbor2.loads(payload), cert, intermediates, valid


def merkle_root(leaves):
    if not leaves:
        return hashlib.sha256(b"").digest()
    level = [hashlib.sha256(b"\x00" + h).digest() for h in leaves]
    while len(level) > 1:
        level = [hashlib.sha256(b"\x01" + level[i] + level[i + 1]).digest() if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return level[0]


def read_records(path, committed=None, resync=()):
    """Records of a run file as dicts (offset, length, sha256, code, valid, cert), and problems."""
    data = open(path, "rb").read()
    readable = len(data) if committed is None else min(len(data), committed)
    view, records, problems, pos = data[:readable], [], [], 0
    tail = None
    while pos < readable:
        stream = io.BytesIO(view)
        stream.seek(pos)
        try:
            obj = cbor2.CBORDecoder(stream).decode()
            if obj is cbor2.break_marker:
                raise ValueError("a break where an item starts")
            end = stream.tell()
            if end - pos > MAX_RECORD_BYTES:
                raise ValueError(f"a record larger than {MAX_RECORD_BYTES} bytes")
        except EOFError:
            tail = ("a record cut short", pos, len(data) - pos)
            break
        except Exception as error:  # noqa: BLE001 - any decoding failure is unreadable bytes
            problems.append(("unreadable", f"unreadable bytes at offset {pos}: {error}"))
            later = [o for o in resync if o > pos]
            if not later:
                break
            pos = min(later)
            continue
        record = {"offset": pos, "length": end - pos, "sha256": hashlib.sha256(view[pos:end]).digest(),
                  "code": None, "valid": False, "cert": None, "chain": []}
        try:
            kind, body, cert, chain, valid = open_sign1(obj)
            record.update(cert=cert, chain=chain, valid=valid, code=body.get("referenceCode") if kind == PROOF else None)
        except Exception:  # noqa: BLE001 - not a proof: an unlisted record
            pass
        records.append(record)
        pos = end
    if tail is None and readable < len(data):
        tail = ("bytes past the committed length", readable, len(data) - readable)
    if tail:
        problems.append(("torn tail", f"torn tail: {tail[0]} at offset {tail[1]} ({tail[2]} bytes)"))
    return records, problems, len(data)


def longest_increasing(values):
    """Positions of one longest strictly increasing subsequence (patience sorting)."""
    tails, previous = [], [-1] * len(values)
    for i, v in enumerate(values):
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if values[tails[mid]] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo > 0:
            previous[i] = tails[lo - 1]
        if lo == len(tails):
            tails.append(i)
        else:
            tails[lo] = i
    kept, i = set(), tails[-1] if tails else -1
    while i >= 0:
        kept.add(i)
        i = previous[i]
    return kept


def run_id(body):
    """runID as in JSON Lines and the report; manifests signed before the names were one say runId."""
    return body.get("runID", body.get("runId"))


def manifest_problems(body):
    problems, run, entries = [], run_id(body), body["proofs"]
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,200}", run) or run in (".", ".."):
        problems.append(f"the run id {run!r} is not a file name")
    run_file = body.get("runFile")
    if run_file and run_file.get("name") != f"{run}.cbor-seq":
        problems.append(f"the run file {run_file.get('name')!r} is not named after run {run}")
    for previous, entry in zip([None] + entries, entries):
        if not CODE.fullmatch(entry[0]):
            problems.append(f"{entry[0]!r} is not a reference code")
        if previous and previous[0] == entry[0]:
            problems.append(f"the proof {entry[0]} is listed twice" if previous[1] == entry[1]
                            else f"two different proofs for reference code {entry[0]} in one run")
        elif previous and previous[0] > entry[0]:
            problems.append(f"the proofs are not sorted by reference code ({entry[0]})")
        if (len(entry) == 4) != bool(run_file):
            problems.append(f"the proof {entry[0]} has no place in the run file, or a run file is missing")
    if body["proofCount"] != len(entries):
        problems.append(f"the manifest states {body['proofCount']} proofs and lists {len(entries)}")
    if merkle_root([e[1] for e in entries]) != body["merkleRoot"]:
        problems.append("the Merkle root does not match the listed proofs")
    return [("inconsistent manifest", "inconsistent manifest: " + p) for p in problems]


def compare(path, body, signer):
    """Problems of the run file at path against the manifest body, each proof signed by signer."""
    if not os.path.isfile(path):
        return [("run file missing", f"the run file {path} is missing")]
    committed = body["runFile"]["length"]
    listed = sorted([e for e in body["proofs"] if len(e) == 4], key=lambda e: e[2])
    records, read_problems, length = read_records(path, committed, [e[2] for e in listed])
    problems = [("run file shorter", f"the run file is {length} bytes, shorter than the {committed} committed")] if length < committed else []
    problems += read_problems
    by_sha = {}
    for i, e in enumerate(listed):
        by_sha.setdefault(e[1], i)
    used, matched, unmatched = [False] * len(listed), [], []
    for r, record in enumerate(records):
        i = by_sha.get(record["sha256"])
        if i is None:
            unmatched.append(r)
        elif used[i]:
            problems.append(("duplicated", f"duplicated proof {listed[i][0]} at offset {record['offset']}"))
        else:
            used[i] = True
            matched.append((r, i))
    by_offset = {listed[i][2]: i for i in range(len(listed)) if not used[i]}
    by_code = {listed[i][0]: i for i in range(len(listed)) if not used[i]}
    for r in unmatched:
        record = records[r]
        i = by_offset.get(record["offset"])
        if i is None or used[i]:
            i = by_code.get(record["code"])
        if i is not None and not used[i]:
            used[i] = True
            problems.append(("altered", f"altered proof {listed[i][0]} at offset {record['offset']} (its SHA-256 differs from the manifest)"))
        else:
            what = f"unlisted proof {record['code']}" if record["code"] else "a record that is no mdocverify proof"
            problems.append(("unlisted", f"{what} at offset {record['offset']}"))
    for i in range(len(listed)):
        if not used[i]:
            problems.append(("missing", f"missing proof {listed[i][0]} (listed at offset {listed[i][2]}, not in the run file)"))
    in_order = longest_increasing([i for _, i in matched])
    for k, (r, i) in enumerate(matched):
        record = records[r]
        if k not in in_order:
            problems.append(("reordered", f"reordered proof {listed[i][0]} at offset {record['offset']} (listed at offset {listed[i][2]})"))
        if not record["valid"]:
            problems.append(("bad signature", f"proof {listed[i][0]} at offset {record['offset']}: the signature does not verify"))
        elif der(record["cert"]) != der(signer):
            problems.append(("other signer", f"proof {listed[i][0]} at offset {record['offset']}: signed with another certificate than the manifest"))
    if not problems:
        for r, i in matched:
            if (records[r]["offset"], records[r]["length"]) != (listed[i][2], listed[i][3]):
                problems.append(("misplaced", f"proof {listed[i][0]} at offset {records[r]['offset']}, listed at offset {listed[i][2]}"))
    return problems


def proof_files(folder, body, signer):
    """Problems of a run whose proofs are files of their own, <folder>/<code>.cose."""
    problems = []
    for code, digest in body["proofs"]:
        path = os.path.join(folder, f"{code}.cose")
        if not CODE.fullmatch(code):
            continue
        if not os.path.exists(path):
            problems.append(("missing", f"missing proof {code}"))
            continue
        data = open(path, "rb").read()
        if hashlib.sha256(data).digest() != digest:
            problems.append(("altered", f"altered proof {code} (its SHA-256 differs from the manifest)"))
            continue
        try:
            _, _, cert, _, valid = open_sign1(cbor2.loads(data))
        except Exception:  # noqa: BLE001
            cert, valid = None, False
        if not valid:
            problems.append(("bad signature", f"proof {code}: the signature does not verify"))
        elif der(cert) != der(signer):
            problems.append(("other signer", f"proof {code}: signed with another certificate than the manifest"))
    return problems


def signer_text(status):
    if status[0] == "trusted":
        return VERIFIED, f"signed by {status[1]} (trusted)"
    if status[0] == "not checked":
        return UNCHECKED, "signature valid; signer not checked"
    return INVALID, f"signature valid, but {status[1]}: not verified"


def report_run(run, where, problems, status, count, finished=True):
    if problems:
        print(f"FAIL run {run}: {where}")
        for _, text in problems:
            print(f"    {text}")
        return INVALID
    outcome, text = signer_text(status)
    label = {VERIFIED: "OK  ", UNCHECKED: "UNCHECKED", INVALID: "FAIL"}[outcome]
    if finished:
        print(f"{label} run {run}: {count} proofs present, unaltered and signed, Merkle root matches; {text}")
    else:
        print(f"{label} run {run}: did not finish (no manifest): {count} proofs, each {text}; completeness not checked")
    return outcome


def check_manifest(path, policy, data=None):
    data = open(path, "rb").read() if data is None else data
    kind, body, cert, chain, valid = open_sign1(cbor2.loads(data))
    out = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    problems = [] if valid else [("manifest signature", "the manifest's signature does not verify")]
    status = policy.status(cert, chain)
    if status[0] == "untrusted":
        problems.append(("untrusted signer", f"the run's signer is not trusted: {status[1]}"))
    problems += manifest_problems(body)
    run = run_id(body)
    safe = re.fullmatch(r"[A-Za-z0-9._-]{1,200}", run) and run not in (".", "..")
    if safe and body.get("runFile"):
        proofs = os.path.join(out, "proofs", f"{run}.cbor-seq")
        problems += compare(proofs, body, cert)
    elif safe:
        proofs = os.path.join(out, "proofs", run)
        problems += proof_files(proofs, body, cert)
    return report_run(run, path, problems, status, len(body["proofs"]))


def check_run_file(path, policy):
    run = os.path.basename(path)[: -len(".cbor-seq")]
    manifest = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))), "runs", f"{run}.cose")
    if os.path.exists(manifest):
        return check_manifest(manifest, policy)
    records, problems, _ = read_records(path)
    status, first, seen = ("not checked",), None, set()
    for record in records:
        if record["cert"] is not None and first is None:
            first = record["cert"]
            status = policy.status(first, record["chain"])
            if status[0] == "untrusted":
                problems.append(("untrusted signer", f"the run's signer is not trusted: {status[1]}"))
        if record["code"] is None:
            problems.append(("unlisted", f"a record that is no mdocverify proof at offset {record['offset']}"))
            continue
        if record["code"] in seen:
            problems.append(("duplicated", f"duplicated proof {record['code']} at offset {record['offset']}"))
        seen.add(record["code"])
        if not record["valid"]:
            problems.append(("bad signature", f"proof {record['code']} at offset {record['offset']}: the signature does not verify"))
        elif der(record["cert"]) != der(first):
            problems.append(("other signer", f"proof {record['code']} at offset {record['offset']}: signed with another certificate"))
    return report_run(run, path, problems, status, len(records), finished=False)


def check_file(path, policy):
    if path.endswith(".cbor-seq"):
        return check_run_file(path, policy)
    data = open(path, "rb").read()
    kind, body, cert, chain, valid = open_sign1(cbor2.loads(data))
    if kind == MANIFEST:
        return check_manifest(path, policy, data)
    if kind != PROOF:
        raise ValueError("not an mdocverify proof or run manifest")
    if not valid:
        print(f"FAIL proof {body.get('referenceCode')}: the signature does not verify")
        return INVALID
    outcome, text = signer_text(policy.status(cert, chain))
    label = {VERIFIED: "OK  ", UNCHECKED: "UNCHECKED", INVALID: "FAIL"}[outcome]
    # transactionID as in JSON Lines and the report; proofs signed before the names were one say transactionId.
    transaction = body.get("transactionID", body.get("transactionId"))
    # A check is [id, status, instant, subject, detail, evidence]; proofs of earlier builds carry maps.
    statuses = {}
    for check in body['checks']:
        status = check[1] if isinstance(check, list) and len(check) > 1 else check.get('status') if isinstance(check, dict) else None
        statuses[status] = statuses.get(status, 0) + 1
    tally = ", ".join(f"{count} {status}" for status, count in sorted(statuses.items(), key=lambda item: str(item[0])))
    print(f"{label} proof {body['referenceCode']} (transaction {transaction}): verdict {body['verdict']}, {len(body['checks'])} checks ({tally}), {text}")
    return outcome


def main(argv):
    cert = trust = None
    paths = []
    args = iter(argv)
    for arg in args:
        if arg in ("--cert", "--processor-trust"):
            value = next(args, None)
            if value is None:
                raise Usage(f"{arg} needs a value")
            cert, trust = (value, trust) if arg == "--cert" else (cert, value)
        elif arg.startswith("-"):
            raise Usage(f"unknown option {arg}")
        else:
            paths.append(arg)
    if not paths or (cert and trust):
        raise Usage("give one or more paths, and --cert or --processor-trust (not both)")
    try:
        policy = Policy(cert, trust)
    except (OSError, ValueError) as error:
        raise Usage(f"cannot read the trusted certificates: {error}")
    outcomes = []
    for path in paths:
        if os.path.isdir(path):
            manifests = sorted(glob.glob(os.path.join(path, "runs", "*.cose")))
            finished = {os.path.basename(m)[: -len(".cose")] for m in manifests}
            run_files = [f for f in sorted(glob.glob(os.path.join(path, "proofs", "*.cbor-seq")))
                         if os.path.basename(f)[: -len(".cbor-seq")] not in finished]
            if not manifests and not run_files:
                raise Usage(f"{path} has no runs/*.cose manifest and no proofs/*.cbor-seq run file")
            targets = manifests + run_files
        elif os.path.exists(path):
            targets = [path]
        else:
            raise Usage(f"{path} does not exist")
        for target in targets:
            try:
                outcomes.append(check_file(target, policy))
            except Exception as error:  # noqa: BLE001 - anything unreadable fails that file
                print(f"FAIL {target}: {error}")
                outcomes.append(INVALID)
    if INVALID in outcomes:
        return INVALID
    if UNCHECKED in outcomes:
        print("Signatures are valid, but nobody checked who signed: pass --cert with the processor's certificate "
              "(<out>/keys/processor-cert.pem, or the one given with --signing-cert) or --processor-trust DIR.")
        return UNCHECKED
    return VERIFIED


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Usage as error:
        print(f"verify-proof.py: {error}", file=sys.stderr)
        sys.exit(2)
