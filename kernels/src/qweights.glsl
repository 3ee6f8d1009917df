// Packed low-bit weights (ir/qweights.h is the one definition): W [N, K]
// stored row after row in 32-bit words, element k of a row in word k /
// per at bits (k % per) * bits, two's complement; scaled formats multiply
// by scales[n, k / group]. The includer declares the `scales` buffer
// (float) and keeps matmul.comp's params with, after them,
//   p[37] format (1 f16, 2 int8, 3 int4, 4 ternary), p[38] group.
const uint QF16 = 1u, QINT8 = 2u, QINT4 = 3u, QTERNARY = 4u;

uint qBits(uint format) { return format == QF16 ? 16u : format == QINT8 ? 8u : format == QINT4 ? 4u : 2u; }

// Field e (< 32 / bits) of a word as the signed value it holds, without
// an int → float conversion (a quarter-rate instruction on most GPUs):
// the field with its sign bit flipped, OR'ed into the mantissa of 2^23, is
// the float 2^23 + field + 2^(bits-1) exactly; subtracting that offset
// leaves the two's complement value (-8..7 for int4).
float qField(uint word, uint e, uint bits) {
  uint sgn = 1u << (bits - 1u);
  uint biased = ((word >> (e * bits)) & ((sgn << 1u) - 1u)) ^ (0x4B000000u | sgn);
  return uintBitsToFloat(biased) - uintBitsToFloat(0x4B000000u | sgn);
}

// Field e of a word of b-bit fields as f = 1 + (q + 2^(b-1)) / 2^(b(d+1)):
// the field, its sign bit flipped, shifted into the mantissa of 1.0, d
// fields below its top bits. One shift and one logic op (no conversion,
// no subtraction); fields e and e - 1 at depths 0 and 1 share the shift. A
// sum Σ x' f over fields with x' = 2^(bd) x gives Σ x q = 2^b (Σ x' f -
// Σ (x' + x / 2)) up to f32 rounding (qmatvec_rows.glsl). e, b and d are
// constants at every use.
float qTop(uint word, uint e, uint b, uint d) {
  int shift = int(23u - b * (d + 1u)) - int(e * b);
  uint v = shift >= 0 ? word << uint(shift) : word >> uint(-shift);
  uint top = 22u - b * d;  // the field's top bit
  return uintBitsToFloat((v & (((1u << b) - 1u) << (top + 1u - b))) ^ (0x3F800000u | (1u << top)));
}
