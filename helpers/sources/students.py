"""The student's own documents and profile, in their own collection, filtered by student id (isolation).

Every student's chunks carry a `student_id` payload that `StudentDocs.search` always filters on, so a query for one
student only returns that student's chunks; `ProfileStore` keeps the profiles as payload-only points.
What it leaves out: uploads at run time and access control beyond the filter.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters
from qdrant_client import models

from helpers.chunking import chunk_for_settings
from helpers.config import REPO_ROOT
from helpers.parsing import parse_folder
from helpers.store import KitStore, class_collection
from helpers.types import Hit

STUDENTS_DIR = REPO_ROOT / "course_data" / "students"
COLLECTION = "nb11_students"
PROFILE_COLLECTION = "nb11_profiles"


@dataclass(frozen=True)
class Profile:
    """The structured profile of one student."""

    student_id: str
    name: str
    degree_level: str
    prior_degree: str
    international: bool
    track: str
    term: str

    def as_text(self) -> str:
        """The profile as short lines for the prompt."""
        status = "international" if self.international else "domestic"
        return (f"Name: {self.name}\nDegree level: {self.degree_level}\nPrior degree: {self.prior_degree}\n"
                f"Status: {status} student\nTrack: {self.track}\nEntry term: {self.term}")  # fmt: skip


def load_profiles(folder: Path = STUDENTS_DIR) -> dict[str, Profile]:
    """Every student's profile, by student id."""
    profiles = {}
    for path in sorted(folder.glob("*/profile.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        profiles[data["student_id"]] = Profile(**data)
    return profiles


def student_filter(student_id: str) -> MetadataFilters:
    """The payload filter that scopes a search to one student."""
    return MetadataFilters(filters=[MetadataFilter(key="student_id", value=student_id)])


class StudentDocs:
    """Every student's documents in one collection, searchable one student at a time."""

    def __init__(self, pipeline, folder: Path = STUDENTS_DIR, collection: str = COLLECTION) -> None:
        self.pipeline, self.folder = pipeline, folder
        name = class_collection(collection, pipeline.settings.store)  # a student's own on a class's shared server
        self.store = KitStore(
            pipeline.store.client, name, pipeline.embedder.dimension, None, pipeline.embedder.model_id
        )

    def ingest(self) -> int:
        """Parse, chunk, embed and store every student's documents (idempotent); returns the point count."""
        parsed = parse_folder(self.folder, progress=False, cache_dir=self.pipeline.settings.paths.cache_dir)
        nodes = chunk_for_settings(parsed.documents, self.pipeline.settings.chunking)
        for node in nodes:
            node.metadata["student_id"] = str(node.metadata["source"]).split("/")[0]
        vectors = self.pipeline.embedder.embed_texts([n.get_content(metadata_mode="embed") for n in nodes])
        for node, vector in zip(nodes, vectors, strict=True):
            node.embedding = vector.tolist()
        self.store.upsert_nodes(nodes)
        return self.store.count()

    def search(self, question: str, student_id: str, k: int = 3) -> list[Hit]:
        """The student's own chunks closest to the question (never another student's)."""
        vector = self.pipeline.embedder.embed_query(question)
        return self.store.search(vector, k, filters=student_filter(student_id))


class ProfileStore:
    """The profiles as payload-only Qdrant points, one per student, fetched by id."""

    def __init__(self, pipeline: Any, collection: str = PROFILE_COLLECTION) -> None:
        self.client, self.collection = pipeline.store.client, class_collection(collection, pipeline.settings.store)
        if not self.client.collection_exists(self.collection):
            self.client.create_collection(self.collection, vectors_config={})

    @staticmethod
    def point_id(student_id: str) -> str:
        """The same student, the same point (a re-run overwrites, never duplicates)."""
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"kit-student-profile/{student_id}"))

    def ingest(self, profiles: Mapping[str, Profile]) -> int:
        """Store every profile (idempotent); returns the point count."""
        points = [models.PointStruct(id=self.point_id(s), vector={}, payload=asdict(p)) for s, p in profiles.items()]
        self.client.upsert(self.collection, points)
        return self.client.count(self.collection, exact=True).count

    def get(self, student_id: str) -> Profile | None:
        """One student's profile, or None for an unknown id."""
        records = self.client.retrieve(self.collection, [self.point_id(student_id)], with_payload=True)
        return Profile(**records[0].payload) if records and records[0].payload else None
