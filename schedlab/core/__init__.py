"""The core every chapter stands on: hardware profiles, the knob space and its launch rules, the cost
model, the GEMM shapes and the landscape record, caching and statistics."""
