#!/usr/bin/env python3
"""Runs aiohomekit 4.0.1's own controller code, with no network, against Hearth's HAP state machines.

The Swift test starts this script and plays the accessory. One JSON object per line on stdin and stdout.

  srp PIN SALT_HEX A_PRIVATE_HEX B_HEX
      aiohomekit's SrpClient with the given private key computes A, M1 and K for the accessory's B;
      prints {"A", "M1", "K"}, then reads {"M2"} and prints {"M2_valid": bool}.

  session PIN PAIRING_ID
      pair-setup (perform_pair_setup_part1/2) and pair-verify (get_session_keys), each request printed as
      {"send": TLV_HEX} and each accessory reply read as {"reply": TLV_HEX}; then one HTTP request of more
      than 1024 bytes sealed by aiohomekit's SecureHomeKitProtocol, printed as {"frames": HEX}; the accessory's
      sealed response is read as {"frames": HEX} and aiohomekit's parse printed as {"status", "body"}.
      A pairing failure prints {"error": EXCEPTION_CLASS_NAME} and exits 0.
"""
import asyncio
import json
import sys

from aiohomekit.controller.ip.connection import SecureHomeKitProtocol
from aiohomekit.crypto.srp import SrpClient, pad_left, to_byte_array
from aiohomekit.protocol import get_session_keys, perform_pair_setup_part1, perform_pair_setup_part2
from aiohomekit.protocol.tlv import TLV


def send(message):
    print(json.dumps(message), flush=True)


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(3)
    return json.loads(line)


def drive(generator):
    """Runs one of aiohomekit's protocol generators, with the Swift side as the accessory."""
    request, expected = next(generator)
    while True:
        send({"send": TLV.encode_list(request).hex()})
        reply = TLV.decode_bytes(bytes.fromhex(receive()["reply"]), expected)
        try:
            request, expected = generator.send(reply)
        except StopIteration as done:
            return done.value


def srp(pin, salt_hex, a_hex, b_hex):
    client = SrpClient("Pair-Setup", pin)
    client.a = int(a_hex, 16)
    client.A = pow(client.g, client.a, client.n)
    client.A_b = pad_left(to_byte_array(client.A), 384)
    client.set_salt(bytearray.fromhex(salt_hex))
    client.set_server_public_key(bytearray.fromhex(b_hex))
    send(
        {
            "A": bytes(client.get_public_key_bytes()).hex(),
            "M1": bytes(client.get_proof_bytes()).hex(),
            "K": bytes(client.get_session_key_bytes()).hex(),
        }
    )
    send({"M2_valid": bool(client.verify_servers_proof_bytes(bytearray.fromhex(receive()["M2"])))})


class CapturingTransport:
    """Stands in for the socket: keeps what aiohomekit writes."""

    def __init__(self):
        self.data = bytearray()

    def is_closing(self):
        return False

    def writelines(self, lines):
        for line in lines:
            self.data += line

    def write_eof(self):
        pass

    def close(self):
        pass


async def exchange_http(a2c_key, c2a_key):
    protocol = SecureHomeKitProtocol(None, a2c_key, c2a_key)
    transport = CapturingTransport()
    protocol.connection_made(transport)
    request = b"GET /accessories HTTP/1.1\r\nHost: hearth\r\nX-Padding: " + b"p" * 1500 + b"\r\n\r\n"
    pending = asyncio.ensure_future(protocol.send_bytes(request))
    await asyncio.sleep(0)
    send({"frames": bytes(transport.data).hex()})
    frames = bytes.fromhex(receive()["frames"])
    # Fed in uneven pieces, as TCP would deliver them.
    for start in range(0, len(frames), 97):
        protocol.data_received(frames[start : start + 97])
    response = await asyncio.wait_for(pending, 5)
    send({"status": response.code, "body": bytes(response.body).decode()})


def session(pin, pairing_id):
    try:
        salt, server_key = drive(perform_pair_setup_part1(with_auth=False))
        pairing = drive(perform_pair_setup_part2(pin, pairing_id, salt, server_key))
        _, derive = drive(get_session_keys(pairing))
    except Exception as error:  # the test asserts on the class name aiohomekit raised
        send({"error": type(error).__name__})
        return
    c2a_key = derive(b"Control-Salt", b"Control-Write-Encryption-Key")
    a2c_key = derive(b"Control-Salt", b"Control-Read-Encryption-Key")
    asyncio.run(exchange_http(a2c_key, c2a_key))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "srp":
        srp(*sys.argv[2:6])
    elif mode == "session":
        session(*sys.argv[2:4])
    else:
        sys.exit(f"unknown mode {mode}")
