// matmul.comp's operand layout and batch walk, shared by the matmul
// kernels: p[36] bits 0 / 1 (A stored [K, M], B stored [N, K]); p[4..7]
// the output batch dims, p[8..11] / p[12..15] A / B batch strides.
bool transA() { return (p[36] & 1u) != 0u; }
bool transB() { return (p[36] & 2u) != 0u; }

void batchOffsets(uint batch, out uint offA, out uint offB) {
  offA = 0;
  offB = 0;
  uint rem = batch;
  for (int d = 3; d >= 0; --d) {
    uint coord = rem % p[4 + d];
    rem /= p[4 + d];
    offA += coord * p[8 + d];
    offB += coord * p[12 + d];
  }
}
