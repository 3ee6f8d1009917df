#!/usr/bin/env python3
"""Edits one byte of a .mgb bundle and recomputes its header checksum, as a
deliberate tamper would (the checksum catches accidents, not edits).

usage: tamper_bundle.py IN.mgb OUT.mgb (weights|manifest) OFFSET XOR
       tamper_bundle.py IN.mgb OUT.mgb double OLD NEW
The first flips `XOR` into byte OFFSET of the weights section or of the
manifest; the second replaces the one little-endian f64 OLD in the manifest
(e.g. the check's tolerance) with NEW. The checksum is
formats/bundle_layout.h bundleChecksum, restated here."""
import struct
import sys

PRIME = 1099511628211
MASK = (1 << 64) - 1
CHECKSUM_OFFSET = 48  # Header.checksum


def checksum(data: bytes) -> int:
    lanes = [1469598103934665603, 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB]
    words = len(data) // 8
    for i in range(words):
        w = 0 if i == CHECKSUM_OFFSET // 8 else struct.unpack_from("<Q", data, 8 * i)[0]
        lanes[i & 3] = ((lanes[i & 3] ^ w) * PRIME) & MASK
    h = lanes[0]
    for b in data[8 * words:]:
        h = ((h ^ b) * PRIME) & MASK
    for k in range(1, 4):
        h = ((h ^ lanes[k]) * PRIME) & MASK
    return h ^ len(data)


def replace_double(data: bytearray, begin: int, end: int, old: float, new: float, src: str) -> None:
    needle = struct.pack("<d", old)
    at = data.find(needle, begin, end)
    if at < 0 or data.find(needle, at + 1, end) >= 0:
        sys.exit(f"{src}: the f64 {old} is not in the manifest exactly once")
    data[at:at + 8] = struct.pack("<d", new)


def main() -> None:
    src, dst, section = sys.argv[1], sys.argv[2], sys.argv[3]
    data = bytearray(open(src, "rb").read())
    manifest_offset, manifest_size, weights_offset, weights_size = struct.unpack_from("<QQQQ", data, 16)
    if section == "double":
        end = manifest_offset + manifest_size
        replace_double(data, manifest_offset, end, float(sys.argv[4]), float(sys.argv[5]), src)
        struct.pack_into("<Q", data, CHECKSUM_OFFSET, checksum(bytes(data)))
        open(dst, "wb").write(data)
        return
    offset, xor = int(sys.argv[4]), int(sys.argv[5], 0)
    base, size = (weights_offset, weights_size) if section == "weights" else (manifest_offset, manifest_size)
    if not 0 <= offset < size:
        sys.exit(f"{src}: offset {offset} outside the {section} section of {size} bytes")
    data[base + offset] ^= xor
    struct.pack_into("<Q", data, CHECKSUM_OFFSET, checksum(bytes(data)))
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
