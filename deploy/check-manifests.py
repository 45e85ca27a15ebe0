#!/usr/bin/env python3
"""Checks Kubernetes manifests offline, as the tests do:

    .build/pyvenv/bin/python deploy/check-manifests.py [FOLDER]   (default deploy/kubernetes)

1. every object against the API schema of its kind (kubernetes-validate, strict: unknown fields
   are errors), for the Kubernetes version the installed kubernetes-validate knows last;
2. every ConfigMap and Secret key a workload refers to (env, envFrom, volumes) exists in the
   ConfigMap or Secret of that name in FOLDER.

Prints one line per problem and exits 1 when there is any, 0 otherwise.
"""
import glob
import os
import sys

import kubernetes_validate
import yaml
from kubernetes_validate import utils


def load(folder):
    """(path, object) for every YAML document in FOLDER/*.yaml."""
    paths = sorted(glob.glob(os.path.join(folder, "*.yaml")))
    if not paths:
        raise SystemExit(f"no manifests in {folder}")
    for path in paths:
        with open(path, encoding="utf-8") as stream:
            for document in yaml.safe_load_all(stream):
                if document is not None:
                    yield path, document


def schema_problems(objects, version):
    for path, document in objects:
        try:
            kubernetes_validate.validate(document, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            where = ".".join(str(part) for part in error.path)
            yield f"{path}: {where}: {error.message}"
        except (utils.SchemaNotFoundError, utils.InvalidSchemaError) as error:
            yield f"{path}: {error}"


def pod_specs(document):
    """The pod specs of a workload object (Deployment, Job, CronJob, ...)."""
    spec = document.get("spec") or {}
    if document.get("kind") == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    template = spec.get("template")
    if isinstance(template, dict):
        yield template.get("spec") or {}


def references(pod):
    """(kind, name, key or None) for every ConfigMap and Secret the pod refers to."""
    for container in (pod.get("containers") or []) + (pod.get("initContainers") or []):
        for variable in container.get("env") or []:
            source = variable.get("valueFrom") or {}
            if "configMapKeyRef" in source:
                yield "ConfigMap", source["configMapKeyRef"].get("name"), source["configMapKeyRef"].get("key")
            if "secretKeyRef" in source:
                yield "Secret", source["secretKeyRef"].get("name"), source["secretKeyRef"].get("key")
        for source in container.get("envFrom") or []:
            if "configMapRef" in source:
                yield "ConfigMap", source["configMapRef"].get("name"), None
            if "secretRef" in source:
                yield "Secret", source["secretRef"].get("name"), None
    for volume in pod.get("volumes") or []:
        for kind, field, name_field in (("ConfigMap", "configMap", "name"), ("Secret", "secret", "secretName")):
            if field in volume:
                items = volume[field].get("items") or [{"key": None}]
                for item in items:
                    yield kind, volume[field].get(name_field), item.get("key")


def reference_problems(objects):
    keys = {}
    for _, document in objects:
        if document.get("kind") in ("ConfigMap", "Secret"):
            name = (document.get("metadata") or {}).get("name")
            found = set((document.get("data") or {}).keys()) | set((document.get("stringData") or {}).keys())
            keys[(document["kind"], name)] = found
    for path, document in objects:
        for pod in pod_specs(document):
            for kind, name, key in references(pod):
                if (kind, name) not in keys:
                    yield f"{path}: refers to {kind} {name}, which no manifest defines"
                elif key is not None and key not in keys[(kind, name)]:
                    yield f"{path}: refers to key {key} of {kind} {name}, which it does not have"


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "kubernetes")
    objects = list(load(folder))
    version = utils.latest_version()
    problems = list(schema_problems(objects, version)) + list(reference_problems(objects))
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(objects)} objects in {folder}: valid for Kubernetes {version}, references resolved")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
