"""`specialists train combo [LightningCLI options]`: LightningCLI over ComboClassifier and
ComboDataModule. Options are LightningCLI's own (--config FILE, --trainer.max_steps N,
--model.backbone NAME, --data.batch_size N, ...) plus --ckpt_path to resume a run."""

from __future__ import annotations

from typing import Sequence

from lightning.pytorch.cli import LightningCLI

from train.combo_module import ComboClassifier
from train.datamodule import ComboDataModule


class ComboCLI(LightningCLI):
    def add_arguments_to_parser(self, parser) -> None:
        # One source of truth: the data's factor table sizes the head, the data's size builds ViTs.
        parser.link_arguments("data.factors", "model.factors")
        parser.link_arguments("data.image_size", "model.image_size")
        parser.add_argument("--ckpt_path", type=str | None, default=None,
                            help="resume fitting from this Lightning checkpoint (e.g. a ModelCheckpoint last.ckpt)")


def main(argv: Sequence[str] | None = None) -> int:
    cli = ComboCLI(ComboClassifier, ComboDataModule, run=False, args=list(argv) if argv is not None else None,
                   save_config_kwargs={"overwrite": True}, seed_everything_default=0)
    cli.trainer.fit(cli.model, datamodule=cli.datamodule, ckpt_path=cli.config.ckpt_path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
