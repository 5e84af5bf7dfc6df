"""ComBo (compositional object benchmark): factor space, reader, ComBo-lite renderer, Category
Building questions with W2 difficulty, prototype retrieval."""

from adapters.datasets.combo.category_building import (
                                CategoryBuildingConfig,
                                CategoryBuildingQuestion,
                                build_category_building,
                                pixel_features,
                                task_name,
)
from adapters.datasets.combo.difficulty import LEVELS, category_distance, wasserstein2
from adapters.datasets.combo.factors import (
                                DEFAULT_FACTOR_FILE,
                                FACTOR_NAMES,
                                ComboObject,
                                FactorTable,
                                FactorTableError,
                                UnknownObjectError,
)
from adapters.datasets.combo.manifest import ComboManifest, ComboManifestError, read_manifest
from adapters.datasets.combo.render import ComboLiteRenderer
from adapters.datasets.combo.retrieval import prototype_scores, prototypes
from adapters.datasets.combo.sources import ComboLiteSource, ManifestSource

__all__ = [
    "CategoryBuildingConfig", "CategoryBuildingQuestion", "build_category_building", "pixel_features", "task_name",
    "LEVELS", "category_distance", "wasserstein2", "DEFAULT_FACTOR_FILE", "FACTOR_NAMES", "ComboObject",
    "FactorTable", "FactorTableError", "UnknownObjectError", "ComboManifest", "ComboManifestError",
    "read_manifest", "ComboLiteRenderer", "prototype_scores", "prototypes", "ComboLiteSource", "ManifestSource",
]
