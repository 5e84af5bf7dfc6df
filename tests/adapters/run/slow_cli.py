"""`specialists` with one more specialist, `slow_random`: the random baseline (its choice depends
only on the seed and the question id) taking SLOW_SECONDS per question, so a test can kill a
process of a run while it answers. Run as a script: Lightning re-runs this same script for each
extra process, so every rank knows the specialist."""

import os
import sys
import time

from adapters.rules.baselines import RandomChoice


class SlowRandom(RandomChoice):
    def decide(self, question):
        time.sleep(float(os.environ.get("SLOW_SECONDS", "0")))
        return super().decide(question)


if __name__ == "__main__":
    from adapters.cli.main import main
    from adapters.core import registry
    from adapters.core.spec import SpecialistSpec

    random = registry.get("random")
    registry.register(SpecialistSpec("slow_random", random.tasks, "baseline", "random, slowly", "slow_cli:SlowRandom"))
    sys.exit(main())
