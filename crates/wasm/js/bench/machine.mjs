// The machine line every benchmark here prints with its figures: the CPU
// model, the core count and the x86 flags that choose the native kernels
// (WebAssembly runs the portable ones whatever they are).
import { readFileSync } from "node:fs";
import { cpus } from "node:os";

/** "MODEL xCORES; flags: ..." for this machine. */
export function machine() {
  let cpuinfo = "";
  try {
    cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  } catch {}
  const flags = (cpuinfo.match(/^flags\s*:(.*)$/m)?.[1] ?? "").split(" ").filter((f) => /^(adx|bmi2|avx2|avx512f|avx512ifma)$/.test(f));
  return `${cpus()[0]?.model} x${cpus().length}; flags: ${flags.join(" ")}`;
}
