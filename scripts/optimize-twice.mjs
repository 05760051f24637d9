// An asc transform that runs the optimizer once before asc runs it, so a release build is
// optimized twice: what asconfig's `converge` gained, without its loop.
//
// Why: `converge` repeats asc's whole optimization until the binary stops shrinking, and keeps
// the last round even when that round grew it. On fence.wasm the rounds went 133113 -> 132872
// -> 132865 -> 132863 -> 132865 B: every build printed "Last converge was suboptimal" and
// shipped 2 B over its best. One round alone is 248 B larger; the second round takes back all
// but 7 B of it, and the rounds after it move a few bytes either way. (Decide times of one,
// two and converged rounds measure alike, within the 2-3% two instances of one module differ.)
//
// How: asc calls afterCompile before it optimizes; this optimizes the same module with the same
// levels (nothing happens in a build that does not optimize, such as the debug target's).
import { Transform } from "assemblyscript/transform";
import { optimize } from "assemblyscript";

export default class OptimizeTwice extends Transform {
  afterCompile() {
    const options = this.program.options;
    if (options.optimizeLevelHint > 0 || options.shrinkLevelHint > 0) {
      optimize(this.program.module, options.optimizeLevelHint, options.shrinkLevelHint, options.debugInfo, false);
    }
  }
}
