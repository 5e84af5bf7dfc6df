"""Visual correspondence with SIFT: which candidate on image 2 is the REF point of image 1?

Primary rule `correspondence.sift_homography`: SIFT matches -> homography by OpenCV's USAC
MAGSAC -> project REF -> the nearest candidate wins. When too few matches agree on a homography,
`correspondence.sift_descriptor`: the candidate whose SIFT descriptor is most similar to REF's.
"""

from __future__ import annotations

import cv2
import numpy as np

from adapters.core.questions import Decision, MCQuestion, QuestionError
from adapters.core.solver import Solver, SolverOptions
from adapters.core.spec import SpecialistSpec
from adapters.rules.choices import letters_by_label
from adapters.rules.evidence import matches_view
from adapters.rules.points import marker_points, scene_image
from specialists.sift import SiftMatcher

MIN_INLIERS = 12


class SiftCorrespondence(Solver):

    def __init__(self, options: SolverOptions, spec: SpecialistSpec) -> None:
        super().__init__(options, spec)
        self.matcher = SiftMatcher()

    def decide(self, question: MCQuestion) -> Decision:
        if len(question.images) < 2:
            raise QuestionError(f"{question.idx}: visual correspondence needs two images, got {len(question.images)}")
        by_label = letters_by_label(question)
        ref = np.array(marker_points(question, 0, ["REF"])["REF"], np.float64)
        candidates = marker_points(question, 1, list(by_label))
        image0, image1 = scene_image(question, 0), scene_image(question, 1)
        matches = self.matcher(image0, image1)
        details: dict = {"matches": len(matches), "scene_images": "markers inpainted"}
        # what the evidence picture shows: every match, and the homography's inliers once one is fitted
        view = dict(image0=image0, image1=image1, keypoints0=matches.keypoints0.numpy(),
                    keypoints1=matches.keypoints1.numpy(), inliers=None, ref=ref, candidates=candidates)
        if len(matches) >= MIN_INLIERS:
            H, mask = cv2.findHomography(
                matches.keypoints0.numpy(), matches.keypoints1.numpy(), cv2.USAC_MAGSAC, 3.0
            )
            inliers = int(mask.sum()) if mask is not None else 0
            details["inliers"] = inliers
            view["inliers"] = mask
            if H is not None and inliers >= MIN_INLIERS:
                projected = cv2.perspectiveTransform(ref.reshape(1, 1, 2), H).reshape(2)
                distance = {label: float(np.linalg.norm(projected - np.array(xy))) for label, xy in candidates.items()}
                details.update(projected=[float(v) for v in projected], distance_px=distance)
                scores = {by_label[label]: -d for label, d in distance.items()}
                decision = Decision.from_scores(scores, "correspondence.sift_homography", details)
                return self._with_matches(decision, view, projected)
        labels = list(candidates)
        ref_desc = self.matcher.describe(image0, ref[None])
        cand_desc = self.matcher.describe(image1, np.array([candidates[label] for label in labels]))
        similarity = (cand_desc @ ref_desc[0]).tolist()
        details["descriptor_similarity"] = dict(zip(labels, similarity))
        scores = {by_label[label]: s for label, s in zip(labels, similarity)}
        decision = Decision.from_scores(scores, "correspondence.sift_descriptor", details)
        return self._with_matches(decision, view, None)

    def _with_matches(self, decision: Decision, view: dict, projected) -> Decision:
        """The decision with the match picture (when the run keeps evidence)."""
        if not self.options.keep_evidence:
            return decision
        return decision.with_evidence(matches=matches_view(**view, projected=projected))
