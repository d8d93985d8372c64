#!/usr/bin/env python3
"""Runs pcie-bench's PCIe bandwidth model on AscendSim's validation setups and prints its figures.

pcie-bench's model (https://github.com/pcie-bench/pcie-model, the model of Neugebauer et al.,
"Understanding PCIe performance for end host networking", SIGCOMM 2018) is imported from a
checkout given with --model; nothing of it is copied here. For every setup listed in SETUPS below
this asks the model for:
  - the bandwidth left for TLPs on one link direction (pcie.Cfg(...).TLP_bw: line rate less ACK
    and flow-control DLLPs and SKP ordered sets), in Gb/s;
  - the payload bandwidth of a stream of memory writes of `size` bytes (mem_bw.write, tx_eff);
  - the payload bandwidth of a stream of memory reads of `size` bytes (mem_bw.read, rx_eff),
both with the whole TLP bandwidth available in each direction (a BW_Spec of type BW_RAW with
TLP_bw on RX and TX, as pcie-bench's own pcie_bw.py does). Output: CSV on stdout, Gb/s as the model
gives them, after '#' lines naming the model's commit.
"""

import argparse
import os
import subprocess
import sys

# The sizes AscendSim's tests stream, from 64 B to 256 MiB, with sizes one byte past an MPS multiple
# (the sawtooth) and sizes that are not whole doublewords.
SIZES = [64, 128, 129, 200, 256, 257, 384, 512, 513, 768, 769, 1024, 1500, 4096, 4097, 65536,
         1 << 20, 64 << 20, 256 << 20]


def setups():
    """(generation, lanes, mps, mrrs, rcb, rcb_chunks, size) of every row, in output order."""
    rows = []
    # Bandwidth against size: Gen3/4/5 x16 at MPS 128/256/512, MRRS 512, completions at MPS.
    for gen in (3, 4, 5):
        for mps in (128, 256, 512):
            for size in SIZES:
                rows.append((gen, 16, mps, 512, 64, False, size))
    # The staging test's 2 MiB chunk: Gen4 x16, MPS 256.
    rows.append((4, 16, 256, 512, 64, False, 2 << 20))
    # Completions split at RCB 64 (rcb_chunks): Gen4 x16, MPS 256, 64 KiB.
    rows.append((4, 16, 256, 512, 64, True, 65536))
    return rows


def git_commit(path):
    try:
        out = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], check=True,
                             capture_output=True, text=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True,
                        help="checkout of https://github.com/pcie-bench/pcie-model")
    args = parser.parse_args()

    model_dir = os.path.abspath(args.model)
    if not os.path.isfile(os.path.join(model_dir, "model", "mem_bw.py")):
        sys.exit("%s has no model/mem_bw.py: not a pcie-bench/pcie-model checkout" % model_dir)
    sys.path.insert(0, model_dir)
    from model import mem_bw, pcie  # pylint: disable=import-outside-toplevel

    print("# pcie-bench model: https://github.com/pcie-bench/pcie-model commit %s"
          % git_commit(model_dir))
    print("# addresses 64-bit, no ECRC; bandwidths in Gb/s (1e9 bit/s) as the model gives them;"
          " write = mem_bw.write tx_eff, read = mem_bw.read rx_eff")
    print("generation,lanes,mps,mrrs,rcb,rcb_chunks,size_bytes,tlp_gbit_s,write_gbit_s,read_gbit_s")
    for gen, lanes, mps, mrrs, rcb, rcb_chunks, size in setups():
        cfg = pcie.Cfg(version="gen%d" % gen, lanes="x%d" % lanes, addr=64, ecrc=0, mps=mps,
                       mrrs=mrrs, rcb=rcb, rcb_chunks=rcb_chunks)
        spec = pcie.BW_Spec(cfg.TLP_bw, cfg.TLP_bw, pcie.BW_Spec.BW_RAW)
        write = mem_bw.write(cfg, spec, size).tx_eff
        read = mem_bw.read(cfg, spec, size).rx_eff
        print("%d,%d,%d,%d,%d,%d,%d,%.6f,%.6f,%.6f"
              % (gen, lanes, mps, mrrs, rcb, int(rcb_chunks), size, cfg.TLP_bw, write, read))
    return 0


if __name__ == "__main__":
    sys.exit(main())
