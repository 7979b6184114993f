"""Where every parameter of every GPU profile comes from: one sentence per field, citing its source.

The profiles themselves are in :mod:`schedlab.core.hardware`; this module is their data sheet. A source
cites the book's bibliography by the short keys of :data:`SOURCE_KEYS` (``[BENCH-DATA]``, ``[MAMF]``, ...).
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["H100_SOURCES", "SOURCE_KEYS", "PROFILE_SOURCES"]


#: Where each H100 number comes from. Keys are :class:`Hardware` field names.
H100_SOURCES = {
    "n_sm": "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), H100 SXM5: 132 SMs",
    "clock_hz": "Implied by the datasheet's 989.4 dense FP16 TFLOPS: 989.4e12 / (132 SM x 4096 FLOP/clk) = 1.83 GHz",
    "tc_flop_per_clk_per_sm": "Whitepaper: 4 fourth-generation tensor cores x 512 dense FP16 FMA/clk = 4096 FLOP/clk/SM",
    "tensor_cores_per_sm": "Whitepaper: one tensor core per SM sub-partition, 4 per SM",
    "smem_bytes_per_clk_per_sm": "32 banks x 4 B per clock (CUDA C++ Programming Guide, shared memory)",
    "l2_port_bytes_per_clk_per_sm": "Lecture 10 assumption: 64 B/clk per SM to L2 (one 64 B sector per clock)",
    "l2_bw_bytes_per_s": "Lecture 8 assumption: ~12 TB/s aggregate L2 (microbenchmark order); seed claims hold for about 11.6-15 TB/s",
    "hbm_bw_bytes_per_s": "H100 SXM5 datasheet: HBM3 3.35 TB/s",
    "l2_bytes": "Whitepaper: 50 MB L2 cache",
    "smem_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 228 KiB shared memory per SM",
    "smem_limit": "CUDA C++ Programming Guide, compute capability 9.0: 227 KiB per block (opt-in)",
    "smem_reserved_per_block": "CUDA C++ Programming Guide: 1 KiB of shared memory reserved by the system per block",
    "regs_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 64 K 32-bit registers per SM",
    "max_regs_per_thread": "CUDA C++ Programming Guide: at most 255 registers per thread",
    "reg_alloc_unit": "CUDA occupancy calculator: registers allocated 256 per warp, i.e. 8 per thread",
    "base_regs_per_thread": "Seed lecture's register account: ~40 registers for addresses, loop state and fragments",
    "max_threads_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 2048 resident threads per SM",
    "max_blocks_per_sm": "CUDA C++ Programming Guide, compute capability 9.0: 32 resident blocks per SM",
    "warp_size": "CUDA: 32 threads per warp",
    "mma_m": "PTX ISA: mma.sync.m16n8k16 for FP16, 16 rows",
    "mma_n": "PTX ISA: mma.sync.m16n8k16 for FP16, 8 columns",
    "bytes_per_element": "FP16 operands: 2 bytes",
    "mem_latency_s": "Lecture 10 section 8.4 assumption: ~750 ns loaded global-memory latency; seed claims hold for about 700-800 ns",
    "t_launch_s": "Lecture assumption: 0, the seed's kernel starts and ends for free",
    "t_k_step_clk": "Lecture assumption: 0, a k-step lasts exactly as long as its slowest term",
    "pipeline_overlap": "Lecture assumption: 1, the pipeline hides every term but the slowest",
    "t_launch_graph_s": "Lecture assumption: 0, as t_launch_s",
    "mma_sync_fraction": "Lecture assumption: 1, every mma at the datasheet's dense peak (the seed's kernel is "
    "written with mma.sync but priced at the full H100 rate; see the model page's limits)",
    "epilogue_smem_passes": "Lecture assumption: 0, the epilogue stores C from registers",
    "resident_blocks_overlap": "Lecture assumption: 0, the blocks of a wave start and end together, so every "
    "wave pays its fill and its epilogue",
    "launch_rules": "Seed lecture's pruning: a fixed warp grid whose warp tile holds one m16n8 mma, at most 255 "
    "registers per thread, stages x (BM + BN) x BK x 2 bytes of shared memory",
}

#: What ``base_regs_per_thread`` is under Triton's rules: not read (the registers are the compiler's).
_TRITON_REGISTERS = (
    "Not read under Triton's rules: registers and spills per thread are what Triton 3.9.0 compiled for each "
    "configuration (tutorial 03's kernel; schedlab/data/triton-registers.csv, schedlab.core.compiler_record)"
)

#: Source of ``launch_rules`` for a profile that Triton compiles for compute capability 9.0 (Hopper).
_TRITON_SM90_RULES = (
    "Triton's compiler for sm_90 (read from triton-lang/triton, checked by compiling with Triton 3.9.0): "
    "warpsPerTileV2/V3 lay out any warp count (AccelerateMatmul.cpp), ptxas spills past 255 registers, "
    "lowerLoads allocates stages buffers with wgmma, stages - 1 without (Pipeliner/LowerLoops.cpp); "
    "only CompiledKernel._init_handles's shared-memory check refuses (compiler.py)"
)

# --- more GPUs ----------------------------------------------------------------------------------
#: The short keys the profiles' sources (:data:`PROFILE_SOURCES`) cite, each -> its entry in the
#: book's bibliography (``book/references.bib``, where title, version and link are given). A test
#: checks that every key a source cites is here, every entry exists, and the GPU page lists them all.
SOURCE_KEYS = MappingProxyType(
    {
        "H100-WP": "nvidia2022h100whitepaper",  # NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022)
        "A100-WP": "nvidia2020a100whitepaper",  # NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)
        "H200-DS": "nvidiaH200datasheet",  # NVIDIA H200 Tensor Core GPU datasheet (2024)
        "A100-DS": "nvidiaA100datasheet",  # NVIDIA A100 Tensor Core GPU datasheet (80 GB SXM4)
        "CUDA-PG": "nvidiaCudaGuide",  # CUDA C++ Programming Guide, features per compute capability
        # S. Bekman, "Machine Learning Engineering", "Maximum Achievable Matmul FLOPS": BF16 torch.matmul
        # (cuBLAS), best shape of a search: H100 SXM 794.5 TFLOPS (torch 2.7.0+cu126), A100 SXM 271.2
        "MAMF": "bekman2024mamf",
        "BENCH": "ernst2023gpubenches",  # D. Ernst, gpu-benches README (stream table: H100 PCIe, CUDA 11.7)
        # gpu-benches raw results: gpu-l2-cache/h200.txt and a100_80.txt (3088b33), cuda-stream/a100_80.txt
        # (cdcc732), gpu-latency/h100_pcie.txt (a7dc559), cuda-latency/a100_80.txt (2f91588)
        "BENCH-DATA": "ernst2024gpubenchesdata",
        "C&C-H100": "chipsandcheese2023h100",  # Chips and Cheese, "Nvidia's H100: Funny L2, ..." (2023-07-02)
        # triton#2339 (2023): on H100 the tutorial "only uses GMMA" (wgmma); cuBLAS 102.6 TFLOPS on 2048x512x512
        "TRITON": "triton2339",
        # W. Luo et al., Hopper microbenchmarks: arXiv 2402.13499 (IPDPS 2024) and 2501.12084 (2025)
        "LUO-HOPPER": "luo2024hopper",
        "LUO-HOPPER-2": "luo2025hopper",
        # meta-pytorch/tritonbench PR 1017 (2026): per-launch CPU cost on a GB200, cuLaunchKernel and Triton
        "TRITONBENCH": "tritonbench1017",
        # ahrefs/ocannl issue 488 (2026): N no-op kernels launched one by one vs replayed as a CUDA graph
        "GRAPH-PROBE": "ocannl488",
    }
)

_H100_SXM_SOURCES = {
    **H100_SOURCES,
    "clock_hz": "Nominal 1.83 GHz implied by the datasheet's 989.4 TFLOPS (as the lecture); the sustained clock "
    "under tensor load varies with power, so the measured rate below folds it in: nvidia-smi read 1980 MHz "
    "after this project's H200 timing runs, 1740-1770 MHz at 592-594 W after the two that ended on "
    "6144^3 (schedlab/data/triton-timings, machine.txt)",
    "tc_flop_per_clk_per_sm": "Measured, effective: [MAMF] H100 SXM 794.5 TFLOPS (cuBLAS, BF16, torch 2.7.0+cu126) "
    "/ (132 SM x 1.83 GHz) = 3289 FLOP/clk/SM, 80 % of the nominal 4096: the wgmma path's rate (cuBLAS uses "
    "wgmma on Hopper, and so does Triton where num_warps % 4 == 0 and BLOCK_M % 64 == 0: supportMMA in triton-lang/triton's lib/Analysis/Utility.cpp)",
    "tensor_cores_per_sm": "[H100-WP] one tensor core per SM sub-partition, 4 per SM. Few-warp blocks: with r "
    "blocks of w warps resident, min(4, r w) tensor cores work (a warp runs on its sub-partition's one). "
    "Issue slots: each sub-partition issues one instruction per clock, so a k-step's tensor-core time is at "
    "least ceil(r w / 4) times the instructions one warp issues per iteration of the compiled k-loop (Triton "
    "3.9's SASS, recorded per kernel in schedlab/data/triton-registers.csv). It binds only for tiles with few "
    "mma per warp: those with 32 or more m16n8k16 per warp per k-step issue 0.44-0.56 of their mma's "
    "tensor-core clocks (tests/test_triton_rules.py). Assumption: a block's barrier and wait stall only its "
    "own warps (the k-step clocks are paid once per step of the r blocks). The code before the k-loop (tile "
    "indices, pointers, masks, the first stages' copies; recorded alike) each block's warps issue once, "
    "ceil(w / 4) times it a block; the SM's blocks, out of phase, one after another and not hidden behind the "
    "other blocks' k-steps (assumptions)",
    "mma_sync_fraction": "Measured, second-hand: [LUO-HOPPER] and [LUO-HOPPER-2] measured FP16 mma.sync and "
    "wgmma on an H800 (GH100, the H100's tensor-core rate): about 494 TFLOPS with mma.sync m16n8k16 against "
    "about 757 with the best dense wgmma, ratio 0.65; these values were read from secondary summaries, not "
    "checked against the papers' tables here. Applied where Triton emits mma.sync: num_warps % 4 != 0 or "
    "BLOCK_M % 64 != 0 (supportMMA(dot, 3), lib/Analysis/Utility.cpp)",
    "epilogue_smem_passes": "Triton's epilogue converts the accumulator from the MMA layout to the store "
    "layout through shared memory (ConvertLayoutOp lowered through a shared scratch buffer): C written "
    "and read once, 2 passes at the shared-memory bandwidth. Counted in the SASS Triton 3.9 compiles for "
    "tutorial 03's kernel (sm_80 and sm_90, mma.sync and wgmma tiles, tests/test_triton_rules.py): after the "
    "loop each block stores its FP16 C tile to shared memory and loads it back once, then stores it to global "
    "memory once; that Inductor's template does the same is an assumption",
    "resident_blocks_overlap": "1, composed from Triton's launch model and stated as an assumption: a "
    "non-persistent Triton kernel runs one program per tile and the GPU starts the next program in a slot "
    "only when the one there has exited (triton-lang/triton, python/tutorials/gluon/07-persistence.py), so "
    "with r >= 2 resident blocks one block's fill (waiting on its first loads) and epilogue (converting and "
    "storing C) run while the SM's other blocks run k-steps. Assumed: the blocks drift out of phase after "
    "the first wave, and each holds its 1/r share of the SM, which idles while it fills or drains, so (r - 1)/r "
    "of every later fill and earlier epilogue is hidden (each SM's first fill and last wave's epilogue never); "
    "the hidden epilogues' shared-memory and port work is added to the k-steps as the pipeline overlaps any two "
    "terms; with r = 1 nothing runs beside them and every wave pays both. Checked on real Triton times "
    "(schedlab/data/triton-timings, an H200): with all of the later fills and epilogues hidden (the rule "
    "before) the model's first pick from Inductor's list was within 10 % of the measured best on 48 of 61 shapes, "
    "with (r - 1)/r on 53 (K of 64 to 256: 13 of 24 before, 18 after)",
    "smem_bytes_per_clk_per_sm": "Measured: [BENCH] gpu-cache, the L1 of V100, A100 and H100 transfers 'close to "
    "128B/cycle/SM' (shared memory is the same SRAM). The bytes it carries per k-step are the MMA instructions' "
    "operand reads under Triton's warp layout (warpsPerTileV2/V3 in triton-lang/triton's lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp); a wgmma reads "
    "both operands from shared memory (the PTX ISA's wgmma.mma_async with two matrix descriptors, as Triton 3.9 "
    "compiles tutorial 03's dot), so B once per 64 rows of the tile; plus the A and B tiles the asynchronous copies "
    "write each k-step, for a bank serves one 32-bit access per clock, read or write [CUDA-PG]",
    "l2_port_bytes_per_clk_per_sm": "Unsourced: the lecture's 64 B/clk per SM kept "
    "(no per-SM L2 port measurement found)",
    "l2_bw_bytes_per_s": "Measured here, a lower bound: on an H200 (the same GH100 chip, 132 SMs), the fastest "
    "configuration of Triton tutorial 03's kernel on 1024 x 1024 x 16384 (64 x 128 x 128, 4 warps, 4 stages: one "
    "wave of 128 tiles; schedlab/data/triton-timings/h200-run1) loaded its tiles' A and B panels, 128 x (64 + "
    "128) x 16384 x 2 B = 768 MiB, in 59.9 us: 13.4 TB/s, the launch, fill and epilogue inside that time. Every "
    "one of those bytes comes through L2: Triton's pipelined loads are cp.async with the .cg modifier for 16-byte "
    "words (L2 only, L1 bypassed; AsyncCopyGlobalToLocalOpConversion, "
    "third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp), so resident blocks sharing a panel do "
    "not share it through L1, and TMA multicast needs a thread-block cluster (num_ctas > 1), which Inductor's mm "
    "configs do not use; the model charges each block's A and B tiles to L2 once per k-step, as here. "
    "[BENCH-DATA] gpu-l2-cache measured less on an H200, 9.78 TB/s (the median of its 8-40 MB rows, every "
    "thread block reading the same data set; the value this profile took before), which a GEMM's traffic "
    "exceeds, so it does not bound it",
    "hbm_bw_bytes_per_s": "3.35 TB/s (datasheet) x 0.81, the read efficiency [BENCH-DATA] measured on the H200 "
    "(3888 of 4800 GB/s, the same GH100 memory system) = 2.71 TB/s; the efficiency carried over is an assumption",
    "l2_partitions": "Measured: [BENCH] gpu-latency and gpu-cache, the H100's L2 is 2 x 25 MB; beyond 25 MB data "
    "read by all SMs 'cannot be replicated in both L2 cache sections'",
    "mem_latency_s": "Fitted, loaded: of 375 ns (a lower bound: [BENCH-DATA] gpu-latency's unloaded pointer "
    "chase on an H100 PCIe, 658 clocks at 1755 MHz from HBM) to 750 ns (the lecture's loaded latency) in 25-ns "
    "steps, the value under which the model ranks Inductor's list best on this project's H200 timings (the main "
    "run, schedlab/data/triton-timings/h200-run1: mean Spearman over its 61 shapes; "
    "schedlab.studies.triton_check.latency_fit, re-fitted whenever the model changes: tests/test_gpus.py). The "
    "held-out and fresh runs were not used; the model page shows the fit's scores and how both rank",
    "t_launch_s": "Derived, eager launch: [TRITON]'s cuBLAS time on 2048 x 512 x 512 (10.47 us) less this "
    "model's best time without it (re-derived to 0.1 us by tests/test_gpus.py whenever the model changes); an "
    "upper bound (2023, form factor not stated). Consistent with "
    "[TRITONBENCH]: per launch on a GB200, cuLaunchKernel alone 3.0-3.3 us and Triton's launcher 4.7-5.6 us",
    "t_launch_graph_s": "Measured on another GPU: [GRAPH-PROBE] a replayed CUDA graph of N no-op kernels costs "
    "about 15 us once plus 0.58 us per kernel (RTX 5070 Ti Laptop, CUDA 13); the per-kernel part carried "
    "over to this GPU is an assumption",
    "t_k_step_clk": "Composed from a measurement and the compiled code: 3 x 34 clocks, the L1 latency [BENCH-DATA] "
    "measured on an H100 PCIe, once per synchronisation of the k-loop: Triton 3.9's sm_90 SASS of the tutorial "
    "kernel waits once on the stage's asynchronous copy (DEPBAR) and passes two CTA barriers (BAR.SYNC) per "
    "k-step, counted in tests/test_triton_rules.py (taking each as long as an L1 round trip is an assumption). "
    "Paid per k-step whatever BLOCK_K, so a larger BLOCK_K spreads it over more FLOP",
    "pipeline_overlap": "Assumption, not measured: 0.9, chosen by looking at outcomes (before the "
    "mma.sync rate and the epilogue's shared-memory passes were priced) so that large GEMMs land near the "
    "medians of measured Triton kernels in a private held-out benchmark of production shapes (595 TFLOPS "
    "on the H100, 226 on the A100); agreement with those medians is therefore no check of the model",
    "launch_rules": _TRITON_SM90_RULES,
    "base_regs_per_thread": _TRITON_REGISTERS,
}

_A100_SOURCES = {
    **{name: text for name, text in H100_SOURCES.items() if "compute capability 9.0" not in text},
    "n_sm": "[A100-WP] A100 SXM4: 108 SMs",
    "clock_hz": "[A100-WP] boost clock 1410 MHz; [C&C-H100] on an A100-SXM4-40GB: 'Core clocks went to 1410 MHz "
    "under load and stays there' (measured sustained clock)",
    "tc_flop_per_clk_per_sm": "Measured, effective: [MAMF] A100 SXM 271.2 TFLOPS (cuBLAS, BF16, torch 2.6.0+cu126) "
    "/ (108 SM x 1.41 GHz) = 1781 FLOP/clk/SM, 87 % of the nominal 2048 [A100-WP]. Path: mma.sync "
    "(the A100 has no wgmma), which Triton and cuBLAS both use",
    "tensor_cores_per_sm": "[A100-WP] one tensor core per SM sub-partition, 4 per SM. Few-warp blocks: "
    "min(4, r w) tensor cores work, and each sub-partition issues one instruction per clock: a k-step's "
    "tensor-core time is at least ceil(r w / 4) times the compiled k-loop's instructions per warp (Triton 3.9's "
    "SASS, recorded per kernel). It binds for tiles with few mma per warp (16 x 32 x 32 with 2 warps: 76 "
    "instructions for 4 mma.sync, about 2 x their tensor-core clocks); tiles with 32 or more per warp issue "
    "0.45-0.85 of theirs (tests/test_triton_rules.py). The code before the k-loop each block's warps issue "
    "once, ceil(w / 4) times it a block; the SM's blocks, out of phase, one after another and not hidden "
    "behind the other blocks' k-steps (assumptions)",
    "smem_bytes_per_clk_per_sm": "Measured: [BENCH] gpu-cache, the L1 of V100, A100 and H100 transfers 'close to "
    "128B/cycle/SM' (shared memory is the same SRAM). The bytes it carries per k-step are the MMA instructions' "
    "operand reads under Triton's warp layout (warpsPerTileV2/V3 in triton-lang/triton's lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp); a wgmma reads "
    "both operands from shared memory (the PTX ISA's wgmma.mma_async with two matrix descriptors, as Triton 3.9 "
    "compiles tutorial 03's dot), so B once per 64 rows of the tile; plus the A and B tiles the asynchronous copies "
    "write each k-step, for a bank serves one 32-bit access per clock, read or write [CUDA-PG]",
    "l2_port_bytes_per_clk_per_sm": "Unsourced: the lecture's 64 B/clk per SM kept",
    "l2_bw_bytes_per_s": "Measured: [BENCH-DATA] gpu-l2-cache on an A100 80GB: 5.40 TB/s, the median of the rows "
    "with 8-26 MB data sets (5.26-5.45 TB/s); 75 % of the 5120 B/clk L2 read bandwidth [A100-WP] gives at "
    "1.41 GHz (7.2 TB/s). Triton's pipelined loads bypass L1 (cp.async .cg), so every block's tiles are L2 "
    "traffic (see h100-sxm)",
    "hbm_bw_bytes_per_s": "Measured: [BENCH-DATA] cuda-stream on an A100 80GB, read column at 100 % occupancy: "
    "1769 GB/s (87 % of the datasheet's 2039 GB/s [A100-DS])",
    "l2_bytes": "[A100-WP] 40 MB L2 cache",
    "l2_partitions": "Measured: [BENCH] gpu-latency and gpu-cache, the A100's L2 is 2 x 20 MB",
    "smem_per_sm": "[CUDA-PG] compute capability 8.0: 164 KiB shared memory per SM",
    "smem_limit": "[CUDA-PG] compute capability 8.0: 163 KiB per block (opt-in)",
    "regs_per_sm": "[CUDA-PG] compute capability 8.0: 64 K 32-bit registers per SM",
    "max_threads_per_sm": "[CUDA-PG] compute capability 8.0: 2048 resident threads per SM",
    "max_blocks_per_sm": "[CUDA-PG] compute capability 8.0: 32 resident blocks per SM",
    "mma_m": "PTX ISA: mma.sync.m16n8k16 for FP16 (sm_80 and later), 16 rows",
    "mma_n": "PTX ISA: mma.sync.m16n8k16 for FP16 (sm_80 and later), 8 columns",
    "mem_latency_s": "Measured, unloaded: [BENCH-DATA] cuda-latency on an A100 80GB, 572 clocks at 1410 MHz from "
    "HBM = 405 ns (a lower bound for the loaded latency)",
    "t_launch_s": "Carried over from h100-sxm (derived from [TRITON]'s cuBLAS time on 2048 x 512 x 512): "
    "an assumption, no A100 measurement of launch and prologue was found",
    "t_launch_graph_s": _H100_SXM_SOURCES["t_launch_graph_s"],
    "t_k_step_clk": "Composed from a measurement and the compiled code: 4 x 36 clocks, the L1 latency [BENCH-DATA] "
    "measured on an A100 80GB, once per synchronisation of the k-loop: Triton 3.9's sm_80 SASS of the tutorial "
    "kernel waits once on the stage's data (cp.async) and passes three CTA barriers per k-step, the third "
    "before prefetching the next k-step's first operand slice into registers (counted in "
    "tests/test_triton_rules.py; taking each as long as an L1 round trip is an assumption)",
    "mma_sync_fraction": "1: the A100 has one tensor-core path, mma.sync [A100-WP], and tc_flop_per_clk_per_sm "
    "is its measured rate",
    "epilogue_smem_passes": _H100_SXM_SOURCES["epilogue_smem_passes"],
    "resident_blocks_overlap": _H100_SXM_SOURCES["resident_blocks_overlap"],
    "pipeline_overlap": _H100_SXM_SOURCES["pipeline_overlap"],
    "base_regs_per_thread": _TRITON_REGISTERS,
    "launch_rules": "Triton's compiler for sm_80 (read from triton-lang/triton, checked by compiling with Triton "
    "3.9.0): warpsPerTileV2 lays out any warp count (AccelerateMatmul.cpp), ptxas spills past 255 registers, "
    "lowerLoads allocates stages - 1 buffers (Pipeliner/LowerLoops.cpp); only CompiledKernel._init_handles's "
    "shared-memory check refuses (compiler.py)",
}

_H200_SOURCES = {
    **_H100_SXM_SOURCES,
    "hbm_bw_bytes_per_s": "Measured: [BENCH-DATA] gpu-l2-cache on an H200, data sets of 0.1-4.9 GB far beyond L2: "
    "3888 GB/s (81 % of the datasheet's 4.8 TB/s [H200-DS])",
    "l2_bw_bytes_per_s": _H100_SXM_SOURCES["l2_bw_bytes_per_s"].replace(
        "on an H200 (the same GH100 chip, 132 SMs)", "on this H200"
    ),
}

_H200_SOURCES["n_sm"] = "[H200-DS] the same GH100 chip as the H100 SXM5: 132 SMs"

_H200_SOURCES["l2_bytes"] = "[H100-WP] 50 MB L2 cache (the H200 is the same GH100 chip)"

#: Short name -> {field name -> where its value comes from}, one entry for every field of every profile.
PROFILE_SOURCES = MappingProxyType(
    {
        "h100-lecture": MappingProxyType({**H100_SOURCES, "l2_partitions": "Lecture assumption: one shared L2"}),
        "h100-sxm": MappingProxyType(_H100_SXM_SOURCES),
        "a100-sxm4": MappingProxyType(_A100_SOURCES),
        "h200-sxm": MappingProxyType(_H200_SOURCES),
    }
)
