"""Reference values from RecBole's sampled evaluation (``uni100``): ``fixtures/recbole.json``.

Run in an environment with RecBole (not evalkit's)::

    python3.11 -m venv /tmp/ref-recbole
    /tmp/ref-recbole/bin/pip install torch==2.13.0 'recbole==1.2.1' 'numpy<1.24'
    /tmp/ref-recbole/bin/python tests/references/recbole.py

(RecBole 1.2.1 uses ``np.float``, removed in numpy 1.24, in its metrics: hence the pin.)

Unlike the other scripts this one does not use ``inputs.py``: RecBole's sampled protocol needs
a catalogue, training data and test items, so it runs on a small dataset of its own, made here
with a fixed seed and stored whole in the fixture: 40 users (tokens 101..140), item tokens
1000..1299 (RecBole's catalogue is those that occur in the files), about 1,400 random training
pairs, one validation item and 1 to 7 test items per user (never a training or validation item
of the user; drawn in favour of high-scored items so that the top 10 holds hits). They are
written as RecBole atomic files (``tiny.train.inter``, ``tiny.valid.inter``,
``tiny.test.inter``, columns ``user_id:token``, ``item_id:token``) in a temporary folder and
loaded with ``benchmark_filename = ["train", "valid", "test"]``, so RecBole keeps the split as
given (its own ids, ``pd.factorize`` order, are mapped back to the tokens through
``dataset.field2id_token``).

The model, ``FixedScores``, is a ``GeneralRecommender`` whose ``predict`` returns one stored
score per item (float32, all distinct, so ``torch.topk`` has no ties to break); nothing is
trained. RecBole's own machinery does the rest: ``create_dataset``, ``data_preparation`` (its
``Sampler`` and ``NegSampleEvalDataLoader`` for ``eval_args.mode = "uni100"``),
``Trainer.evaluate(test_data)`` (``_neg_sample_batch_eval``, ``Collector``, ``Evaluator``) with
``metrics = ["Recall", "NDCG", "Hit", "MRR"]`` and ``topk = [10]``.

Captured by wrapping RecBole's objects (each wrapper calls the original and records its result):
the negatives the test sampler draws for each user (``Sampler.sample_by_user_ids``), each
batch's candidate interactions and score matrix (``Collector.eval_batch_collect``; the top 10
items are taken from that matrix with the collector's own call, ``torch.topk(scores, 10)``), and
the ``DataStruct`` the ``Evaluator`` reads. Per-user values are each metric's own
``metric_info(*used_info(struct))`` at k = 10; the means are ``Trainer.evaluate``'s result with
``metric_decimal_place = 30`` (the default, 4, would round them). The script checks that the
sampler's draws are the batches' negatives, that the means are the per-user means, and that no
draw is an item of the user's train, validation or test rows.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import inputs  # noqa: E402  (its fixture writing; RecBole reads its own data)

# This file is named like the library: drop its folder from the path before importing it.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import numpy as np  # noqa: E402
import recbole  # noqa: E402
import torch  # noqa: E402
from recbole.config import Config  # noqa: E402
from recbole.data import create_dataset, data_preparation  # noqa: E402
from recbole.model.abstract_recommender import GeneralRecommender  # noqa: E402
from recbole.trainer import Trainer  # noqa: E402
from recbole.utils import InputType, ModelType, init_seed  # noqa: E402

# pandas 2 warns about RecBole's chained fillna (dataset.py); it does not change the data here
warnings.filterwarnings("ignore", category=FutureWarning, module="recbole")

#: The fixture's keys whose values are written on one line each.
ONE_LINE = ("catalog", "train", "valid", "test", "scores", "negatives", "top_k")
OUT = HERE / "fixtures" / "recbole.json"
K = 10
N_NEGATIVES = 100
SEED = 2020  # RecBole's default seed (init_seed: numpy's global state, which the sampler uses)
USERS = np.arange(101, 141)
ITEMS = np.arange(1000, 1300)
METRICS = {  # fixture key -> (RecBole metric, its result key)
    "recall@10": ("Recall", "recall@10"),
    "ndcg@10": ("NDCG", "ndcg@10"),
    "hit_rate@10": ("Hit", "hit@10"),
    "mrr@10": ("MRR", "mrr@10"),
}
SOURCE_FILES = [
    "recbole/sampler/sampler.py",
    "recbole/data/utils.py",
    "recbole/data/dataloader/abstract_dataloader.py",
    "recbole/data/dataloader/general_dataloader.py",
    "recbole/data/dataset/dataset.py",
    "recbole/trainer/trainer.py",
    "recbole/evaluator/collector.py",
    "recbole/evaluator/evaluator.py",
    "recbole/evaluator/base_metric.py",
    "recbole/evaluator/metrics.py",
    "recbole/config/configurator.py",
    "recbole/properties/overall.yaml",
    "recbole/properties/dataset/sample.yaml",
    "recbole/model/abstract_recommender.py",
]


def make_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, float]]:
    """(user, item) rows of train, valid and test, and one float32 score per item token. Test
    items are drawn in favour of high scores (weight ``exp(6 score)``), so that hits at every
    rank occur."""
    rng = np.random.default_rng(11)
    score = rng.random(len(ITEMS)).astype(np.float32)
    if len(np.unique(score)) != len(score):
        raise AssertionError("scores must be distinct")
    train = np.stack([rng.choice(USERS, 1500), rng.choice(ITEMS, 1500)], axis=1)
    _, first = np.unique(train, axis=0, return_index=True)
    train = train[np.sort(first)]
    seen = {int(u): set() for u in USERS}
    for u, i in train:
        seen[int(u)].add(int(i))
    valid, test = [], []
    for u in USERS:
        free = np.flatnonzero(~np.isin(ITEMS, sorted(seen[int(u)])))
        picked = rng.choice(free)
        valid.append((u, ITEMS[picked]))
        free = free[free != picked]
        weight = np.exp(6.0 * score[free].astype(np.float64))
        chosen = rng.choice(free, int(rng.integers(1, 8)), replace=False, p=weight / weight.sum())
        test.extend((u, ITEMS[i]) for i in chosen)
    test = np.array(test)
    test = test[rng.permutation(len(test))]  # rows not grouped by user
    return train, np.array(valid), test, {int(i): float(s) for i, s in zip(ITEMS, score)}


def write_inter(path: Path, rows: np.ndarray) -> None:
    lines = ["user_id:token\titem_id:token"] + [f"{u}\t{i}" for u, i in rows]
    path.write_text("\n".join(lines) + "\n")


class FixedScores(GeneralRecommender):
    """One stored score per item, whoever the user: ``predict`` looks it up."""

    input_type = InputType.POINTWISE
    type = ModelType.GENERAL
    item_scores: dict[int, float] = {}  # item token -> score, set before the model is built

    def __init__(self, config, dataset):
        super().__init__(config, dataset)
        self.fake_loss = torch.nn.Parameter(torch.zeros(1))  # the optimizer needs a parameter
        tokens = dataset.field2id_token[self.ITEM_ID]
        by_id = np.full(len(tokens), -np.inf, dtype=np.float32)  # id 0 is RecBole's padding
        by_id[1:] = [self.item_scores[int(t)] for t in tokens[1:]]
        self.register_buffer("score", torch.from_numpy(by_id))

    def calculate_loss(self, interaction):
        return self.fake_loss

    def predict(self, interaction):
        return self.score[interaction[self.ITEM_ID]]

    def full_sort_predict(self, interaction):
        n = interaction[self.USER_ID].shape[0]
        return self.score.repeat(n)


def main() -> None:
    train, valid, test, item_scores = make_data()
    FixedScores.item_scores = item_scores
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "tiny"
        folder.mkdir()
        for name, rows in (("train", train), ("valid", valid), ("test", test)):
            write_inter(folder / f"tiny.{name}.inter", rows)
        config_dict = {
            "data_path": tmp,
            "checkpoint_dir": str(Path(tmp) / "saved"),
            "benchmark_filename": ["train", "valid", "test"],
            "load_col": {"inter": ["user_id", "item_id"]},
            "eval_args": {"mode": f"uni{N_NEGATIVES}", "order": "RO", "group_by": "user"},
            "metrics": [m for m, _ in METRICS.values()],
            "topk": [K],
            "valid_metric": "MRR@10",
            "metric_decimal_place": 30,
            "seed": SEED,
            "reproducibility": True,
            "use_gpu": False,
            "show_progress": False,
            "state": "WARNING",
        }
        cwd = os.getcwd()
        os.chdir(tmp)  # the Trainer's tensorboard writer makes a folder in the working directory
        try:
            config = Config(model=FixedScores, dataset="tiny", config_dict=config_dict)
            init_seed(config["seed"], config["reproducibility"])
            dataset = create_dataset(config)
            train_data, valid_data, test_data = data_preparation(config, dataset)
            init_seed(config["seed"], config["reproducibility"])
            model = FixedScores(config, train_data.dataset).to(config["device"])
            trainer = Trainer(config, model)
            draws, batches, structs = wrap(trainer, test_data)
            result = trainer.evaluate(test_data, load_best_model=False)
        finally:
            os.chdir(cwd)

    uid_token = dataset.field2id_token["user_id"]
    iid_token = dataset.field2id_token["item_id"]
    catalog = sorted(int(t) for t in iid_token[1:])
    if test_data._sampler.phase != "test" or test_data.neg_sample_args != {
            "distribution": "uniform", "sample_num": N_NEGATIVES}:
        raise AssertionError(f"not uni100: {test_data.neg_sample_args}")

    # the sampler's draws, per user in the order drawn
    negatives: dict[str, list[int]] = {}
    for user_ids, num, value_ids in draws:
        if num != N_NEGATIVES or len(set(user_ids.tolist())) != 1:
            raise AssertionError("each call samples 100 negatives per test row of one user")
        user = str(int(uid_token[user_ids[0]]))
        if user in negatives:
            raise AssertionError(f"user {user} sampled twice")
        negatives[user] = [int(iid_token[i]) for i in value_ids.tolist()]
    used: dict[str, set[int]] = {}
    for u, i in np.concatenate([train, valid, test]):
        used.setdefault(str(int(u)), set()).add(int(i))
    for user, items in negatives.items():
        if used[user] & set(items):
            raise AssertionError(f"user {user}: a used item was drawn")

    # the batches: per user, its test items then its negatives; the top 10 of its score row
    order: list[str] = []
    top_k: dict[str, list[int]] = {}
    for interaction, scores, positive_u in batches:
        users = interaction["user_id"].numpy()
        items = interaction["item_id"].numpy()
        _, topk_idx = torch.topk(scores, K, dim=-1)  # the collector's call
        row_users = list(dict.fromkeys(users.tolist()))
        for row, uid in enumerate(row_users):
            user = str(int(uid_token[uid]))
            mine = [int(iid_token[i]) for i in items[users == uid]]
            n_pos = int((positive_u == row).sum())
            truth_items = sorted(int(i) for u, i in test if str(int(u)) == user)
            if sorted(mine[:n_pos]) != truth_items or mine[n_pos:] != negatives[user]:
                raise AssertionError(f"user {user}: the batch is not its test items + draws")
            order.append(user)
            top_k[user] = [int(iid_token[i]) for i in topk_idx[row].tolist()]
    if len(structs) != 1:
        raise AssertionError("one evaluation")
    struct = structs[0]

    metrics = {}
    for key, (name, result_key) in METRICS.items():
        metric = trainer.evaluator.metric_class[name.lower()]
        pos_index, pos_len = metric.used_info(struct)
        values = (metric.metric_info(pos_index, pos_len) if name in ("Recall", "NDCG")
                  else metric.metric_info(pos_index))[:, K - 1]
        mean = float(result[result_key])
        if abs(mean - float(values.mean())) > 1e-15:
            raise AssertionError(f"{key}: mean {mean} != per-user mean {values.mean()}")
        metrics[key] = {
            "call": f"recbole.evaluator.metrics.{name} in Trainer.evaluate(test_data) (result "
                    f"key {result_key!r}); per user: {name}.metric_info(*used_info(struct))"
                    f"[:, {K - 1}]",
            "mean": mean,
            "per_user": by_user({user: float(v) for user, v in zip(order, values)}),
        }

    fixture = {
        "library": "recbole",
        "version": recbole.__version__,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "numpy": np.__version__,
        "source_files": SOURCE_FILES,
        "config": {key: config[key] for key in (
            "eval_args", "metrics", "topk", "seed", "repeatable", "test_neg_sample_args",
            "eval_batch_size", "metric_decimal_place")},
        "fed": {
            "data": "tiny.train.inter, tiny.valid.inter, tiny.test.inter (user_id:token, "
                    "item_id:token) = train, valid, test below, benchmark_filename "
                    "['train', 'valid', 'test']",
            "model": "FixedScores(GeneralRecommender): predict = scores[item] (float32, "
                     "distinct), no training",
            "catalog": "RecBole's items: every item token of the three files (its sampler "
                       "draws ids 1 .. item_num - 1)",
        },
        "n_negatives": N_NEGATIVES,
        "k": K,
        "catalog": catalog,
        "train": train.tolist(),
        "valid": valid.tolist(),
        "test": test.tolist(),
        "scores": {str(i): s for i, s in item_scores.items()},
        "negatives": by_user(negatives),
        "top_k": by_user(top_k),
        "metrics": metrics,
    }
    summary = (f"{len(order)} users, {len(test)} test rows, "
               f"{sum(map(len, negatives.values()))} draws: "
               + ", ".join(f"{k} {m['mean']:.4f}" for k, m in metrics.items()))
    inputs.write_fixture(OUT, fixture, ONE_LINE)
    print(f"wrote {OUT} ({summary})")


def by_user(values: dict) -> dict:
    """The same dict, users in ascending id order (RecBole's order is its own ids')."""
    return {user: values[user] for user in sorted(values, key=int)}


def wrap(trainer: Trainer, test_data) -> tuple[list, list, list]:
    """Record the test sampler's draws, the batches the collector sees, and the evaluator's
    input, calling RecBole's own methods unchanged."""
    draws, batches, structs = [], [], []
    sampler = test_data._sampler
    sample_by_user_ids = sampler.sample_by_user_ids

    def sampled(user_ids, item_ids, num):
        value_ids = sample_by_user_ids(user_ids, item_ids, num)
        draws.append((np.asarray(user_ids).copy(), num, value_ids.clone()))
        return value_ids

    sampler.sample_by_user_ids = sampled
    collect = trainer.eval_collector.eval_batch_collect

    def collected(scores_tensor, interaction, positive_u, positive_i):
        batches.append((interaction, scores_tensor.clone(), positive_u.numpy().copy()))
        return collect(scores_tensor, interaction, positive_u, positive_i)

    trainer.eval_collector.eval_batch_collect = collected
    evaluate = trainer.evaluator.evaluate

    def evaluated(dataobject):
        structs.append(dataobject)
        return evaluate(dataobject)

    trainer.evaluator.evaluate = evaluated
    return draws, batches, structs


if __name__ == "__main__":
    main()
