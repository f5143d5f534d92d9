#!/usr/bin/env python3
"""srp_peers.py [--reps N] [--json FILE] - the HAP benchmarks' operations in the Python peers, offline.

Measures, with time.process_time (CPU time of this process) over N repetitions, in HAP-python 5.0.0 and
aiohomekit 4.0.1 as installed from PyPI:

  pair-setup, accessory side   HAP-python's HAPServerHandler.handle_pairing for M1, M3 and M5 (TLV decode, SRP:
                               verifier, B, S, K, proofs; HKDF, ChaCha20-Poly1305, Ed25519 verify and sign, TLV
                               encode). HAP-python makes the SRP verifier in M1 on every pair-setup; that is
                               counted, because it is what HAP-python does.
  pair-setup, accessory SRP    pyhap.hsrp.Server alone: Server(...), get_challenge, set_A, verify.
  pair-setup, controller side  aiohomekit.protocol.perform_pair_setup_part1 and _part2 generator steps.
  pair-verify, accessory side  HAPServerHandler.handle_pair_verify for M1 and M3.
  pair-verify, controller side aiohomekit.protocol.get_session_keys generator steps.
  session seal/open 1 KiB      pyhap.hap_crypto.HAPCrypto.encrypt / receive_data + decrypt, one frame per call.
  TLV8 encode/decode M3        pyhap.tlv.encode / decode of State, a 384-byte key and a 64-byte proof.
  ModExp 3072-bit, 512-bit     Python's pow(base, exponent, N) on the HAP group.

Both sides run live against each other, with no sockets and no HTTP: each side's CPU time is summed only over its
own calls, so the accessory figure excludes the controller's work and the reverse. Pair-setups that fail at M4
because of HAP-python's unpadded SRP values (about 1.3%, see /work/shared/peers/srp_padding_check.py) are run
again and not counted. Prints a markdown table and, with --json, writes the figures in microseconds.
"""
import argparse
import hashlib
import json
import logging
import os
import platform
import statistics
import sys
import time
import uuid
from importlib import metadata
from types import SimpleNamespace

from aiohomekit.crypto.srp import SrpClient
from aiohomekit.protocol import get_session_keys, perform_pair_setup_part1, perform_pair_setup_part2
from aiohomekit.protocol.tlv import TLV
from pyhap import tlv as pyhap_tlv
from pyhap.accessory_driver import AccessoryDriver
from pyhap.hap_crypto import HAPCrypto
from pyhap.hap_handler import HAPResponse, HAPServerHandler
from pyhap.hsrp import Server
from pyhap.params import get_srp_context
from pyhap.state import State

SETUP_CODE = "518-08-582"
logging.disable(logging.CRITICAL)  # HAP-python logs every pairing at INFO; logging is not what is measured


class Clock:
    """Sums CPU time over the calls made inside `with clock:` blocks."""

    def __init__(self):
        self.total = 0.0

    def __enter__(self):
        self.start = time.process_time()

    def __exit__(self, *exc):
        self.total += time.process_time() - self.start


def make_driver():
    """The pieces of an AccessoryDriver that HAPServerHandler's pairing code touches, without sockets or files."""
    state = State(address="127.0.0.1", mac="E1:91:1A:70:85:AA", pincode=SETUP_CODE.encode(), port=51826)
    driver = SimpleNamespace(state=state, srp_verifier=None, accessory=SimpleNamespace(display_name="bench"))
    driver.setup_srp_verifier = lambda: AccessoryDriver.setup_srp_verifier(driver)

    def pair(client_username_bytes, client_public, client_permissions):
        state.add_paired_client(client_username_bytes, client_public, client_permissions)
        return True

    driver.pair = pair
    driver.async_persist = lambda: None
    return driver


def post(handler, method, body, clock):
    """One request to the accessory, as the HTTP layer would hand it over; only the handler call is timed."""
    handler.request_body = bytes(body)
    handler.response = HAPResponse()
    with clock:
        method()
    response, handler.response = handler.response, None
    return response.body


def drive(generator, handler, method, accessory, controller):
    """Runs an aiohomekit generator against a HAP-python handler; returns the generator's result."""
    with controller:
        request, expected = generator.send(None)
    while True:
        reply = post(handler, method, TLV.encode_list(request), accessory)
        try:
            with controller:
                request, expected = generator.send(TLV.decode_bytes(reply, expected=expected))
        except StopIteration as result:
            return result.value


def pair_setup_once():
    """One pair-setup; returns (accessory CPU, controller CPU, pairing data, driver) or None when it failed."""
    driver = make_driver()
    handler = HAPServerHandler(driver, ("127.0.0.1", 0))
    accessory, controller = Clock(), Clock()
    try:
        salt, public_key = drive(perform_pair_setup_part1(False), handler, handler.handle_pairing, accessory, controller)
        with controller:
            part2 = perform_pair_setup_part2(SETUP_CODE, str(uuid.uuid4()), salt, public_key)
        pairing = drive(part2, handler, handler.handle_pairing, accessory, controller)
    except Exception:  # HAP-python's unpadded B, S or K: the peers' known 1.3% failure, not a timing
        return None
    return accessory.total, controller.total, pairing, driver


def pair_verify_once(pairing, driver):
    handler = HAPServerHandler(driver, ("127.0.0.1", 0))
    accessory, controller = Clock(), Clock()
    drive(get_session_keys(pairing), handler, handler.handle_pair_verify, accessory, controller)
    if not handler.is_encrypted:
        raise RuntimeError("pair-verify did not finish")
    return accessory.total, controller.total


def srp_accessory_once(context):
    """pyhap.hsrp.Server's work for one pair-setup; the client's work is done outside the timed calls."""
    clock = Clock()
    with clock:
        server = Server(context, b"Pair-Setup", SETUP_CODE.encode())
        salt, _ = server.get_challenge()
    client = SrpClient("Pair-Setup", SETUP_CODE)
    client.set_salt(bytearray(salt))
    client.set_server_public_key(server.Bb)
    public_key, proof = client.get_public_key_bytes(), client.get_proof_bytes()
    with clock:
        server.set_A(public_key)
        accepted = server.verify(proof)
    return clock.total if accepted is not None else None


def repeat(function, reps):
    """Calls `function` until it has given `reps` results that are not None."""
    results, failures = [], 0
    while len(results) < reps:
        result = function()
        if result is None:
            failures += 1
        else:
            results.append(result)
    return results, failures


def per_call(reps, function):
    """CPU seconds per call of `function`, in `reps` batches of calls; returns the per-call value of each batch."""
    return [function() for _ in range(reps)]


def summary(samples_seconds):
    micros = sorted(s * 1e6 for s in samples_seconds)
    return {
        "p50_us": statistics.median(micros),
        "p99_us": micros[min(len(micros) - 1, int(len(micros) * 0.99))],
        "mean_us": statistics.fmean(micros),
        "samples": len(micros),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100, help="pair-setups and pair-verifies to time")
    parser.add_argument("--json", help="also write the results to this file")
    arguments = parser.parse_args()
    reps = arguments.reps
    results = {}

    setups, setup_failures = repeat(pair_setup_once, reps)
    results["Pair-setup, accessory side (M1..M6)"] = summary([s[0] for s in setups])
    results["Pair-setup, controller side"] = summary([s[1] for s in setups])

    context = get_srp_context(3072, hashlib.sha512, 16)
    srp, srp_failures = repeat(lambda: srp_accessory_once(context), reps)
    results["Pair-setup, accessory SRP only"] = summary(srp)

    pairing, driver = setups[-1][2], setups[-1][3]
    verifies = [pair_verify_once(pairing, driver) for _ in range(reps)]
    results["Pair-verify, accessory side"] = summary([v[0] for v in verifies])
    results["Pair-verify, controller side"] = summary([v[1] for v in verifies])

    # Session frames: 1,000 frames per sample, reported per frame.
    frames, plaintext = 1000, bytes(i & 0xFF for i in range(1024))
    shared_key = os.urandom(32)

    def seal_batch():
        crypto = HAPCrypto(shared_key)
        start = time.process_time()
        for _ in range(frames):
            crypto.encrypt(plaintext)
        return (time.process_time() - start) / frames

    sender = HAPCrypto(shared_key)
    sealed = [b"".join(sender.encrypt(plaintext)) for _ in range(frames)]

    def open_batch():
        crypto = HAPCrypto(shared_key)
        crypto._in_cipher = HAPCrypto(shared_key)._out_cipher  # open what an accessory sealed
        start = time.process_time()
        for frame in sealed:
            crypto.receive_data(frame)
            if len(crypto.decrypt()) != len(plaintext):
                raise RuntimeError("frame did not open")
        return (time.process_time() - start) / frames

    results["Session seal 1 KiB frame"] = summary(per_call(50, seal_batch))
    results["Session open 1 KiB frame"] = summary(per_call(50, open_batch))

    # TLV8 on pair-setup M3, 1,000 per sample.
    key, proof = os.urandom(384), os.urandom(64)
    encoded = pyhap_tlv.encode(b"\x06", b"\x03", b"\x03", key, b"\x04", proof)

    def tlv_batch(operation):
        def batch():
            start = time.process_time()
            for _ in range(1000):
                operation()
            return (time.process_time() - start) / 1000

        return batch

    results["TLV8 encode pair-setup M3"] = summary(
        per_call(50, tlv_batch(lambda: pyhap_tlv.encode(b"\x06", b"\x03", b"\x03", key, b"\x04", proof)))
    )
    results["TLV8 decode pair-setup M3"] = summary(per_call(50, tlv_batch(lambda: pyhap_tlv.decode(encoded))))

    modulus = context["N"]
    base = int.from_bytes(os.urandom(384), "big") % modulus
    exponent = int.from_bytes(os.urandom(64), "big") | 1 << 511

    def modexp_batch():
        start = time.process_time()
        for _ in range(20):
            pow(base, exponent, modulus)
        return (time.process_time() - start) / 20

    results["ModExp 3072-bit, 512-bit exponent"] = summary(per_call(50, modexp_batch))

    peers = {name: metadata.version(name) for name in ("HAP-python", "aiohomekit", "cryptography")}
    report = {
        "python": platform.python_version(),
        "peers": peers,
        "reps": reps,
        "failed_pair_setups_rerun": setup_failures,
        "failed_srp_only_rerun": srp_failures,
        "results": results,
    }
    print(f"Python {report['python']}, " + ", ".join(f"{k} {v}" for k, v in peers.items()) + f", {reps} reps")
    print(f"(pair-setups rerun after the peers' padding failure: {setup_failures} full, {srp_failures} SRP-only)")
    print()
    print("| Operation (peer) | p50 CPU | p99 CPU | samples |")
    print("|---|---:|---:|---:|")
    for name, figures in results.items():
        peer = "aiohomekit" if "controller" in name else "HAP-python" if "ModExp" not in name else "CPython pow"
        print(f"| {name} ({peer}) | {format_micros(figures['p50_us'])} | {format_micros(figures['p99_us'])} "
              f"| {figures['samples']} |")
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump(report, file, indent=2)


def format_micros(value):
    return f"{value / 1000:.2f} ms" if value >= 1000 else f"{value:.2f} µs"


if __name__ == "__main__":
    sys.exit(main())
