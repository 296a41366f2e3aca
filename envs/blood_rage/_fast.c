/* Blood Rage's observation tensor and action mask, written in C for the learning environments.

   What it writes, and where, is envs/blood_rage/encoding.py's: that module is the reference
   (``BloodRageEncoding.encode_reference``), documents every field and decides every number;
   this file only does the same reads and writes without the interpreter between them (an
   observation is a few hundred scattered writes, about as dear in Python as the decision it
   observes). tests/envs/test_fast_encoding.py holds the two to the same tensor, bit for bit,
   over random games of every player count.

   Python gives the layout once per player count (``configure``, with the names in ``PLAN``:
   this file owns their order) and the seats the rules await, and keeps the parts that need
   more of the rules: a battle's strengths, the results of a finished game. Every write is
   bounds-checked: a state the layout does not expect raises, it never writes outside the
   buffer. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h> /* T_OBJECT_EX */

/* The plan: offsets of the layout and constants of the rules, by name (see PLAN_NAMES). */
enum {
    P_PLAYERS, P_SIZE, P_STRIDE,
    P_VIEWER, P_AGE, P_PHASE, P_STEP, P_FIRST_PLAYER, P_TURN,
    P_AWAITING, P_SIMULTANEOUS, P_COMMITTED,
    P_PROMPT, P_PROMPT_SEAT, P_PROMPT_UNIT, P_PROMPT_AREA, P_PROMPT_EXCLUDED_STAT,
    P_PROMPT_DOOMED, P_PROMPT_QUEUED,
    P_BOARD, P_DECK_SIZES, P_DISCARD, P_UNSEEN_COUNT,
    P_MARCH_FROM, P_MARCH_TO, P_MARCH_MOVED, P_DOOMED_COUNT,
    P_BATTLE, P_BATTLE_PROVINCE, P_BATTLE_PILLAGER, P_BATTLE_PARTICIPANTS, P_BATTLE_COMMITTED,
    P_BATTLE_REVEALED, P_BATTLE_CANCELLED, P_BATTLE_TOTALS_SHOWN, P_BATTLE_TOTALS,
    P_BATTLE_WINNER, P_BATTLE_REVEAL_ROUND, P_BATTLE_KILLED,
    P_BLOCK, P_HAND, P_PACK, P_PENDING_PICKS, P_PICKS_LEFT, P_QUESTS, P_BATTLE_CARD, P_KEEP,
    P_KEPT,
    P_IN_RAGE, P_IN_GLORY, P_IN_HAND, P_IN_QUESTS, P_IN_PACK, P_IN_KEPT, P_IN_FIGURES,
    P_IN_UPGRADES,
    P_IN_TOKEN, P_IN_PILLAGED, P_IN_RAGNAROK, P_IN_DOOM,
    P_PROVINCES, P_TOKENS, P_CARDS, P_LOCATIONS, P_NUM_AREAS, P_COMPARE_STAGE,
    P_PHASE_ACTION, P_STEP_DRAFT_PICK, P_PROMPT_FREE_INVADE, P_PROMPT_RAISE_STAT,
    P_PROMPT_PROTECT, P_PROMPT_SUCCOR, P_PROMPT_BLESSING, P_PROMPT_THORS_DOMAIN,
    P_HIDDEN_CHOICE, P_EMPTY, P_NO_DRAFT, P_DRAFT_KEEP,
    P_STEP_BATTLE_CARDS, P_STEP_DISCARD, P_NOT_INVOLVED,
    P_COUNT
};

static const char *PLAN_NAMES[P_COUNT] = {
    "players", "size", "stride",
    "viewer", "age", "phase", "step", "first_player", "turn",
    "awaiting", "simultaneous", "committed",
    "prompt", "prompt_seat", "prompt_unit", "prompt_area", "prompt_excluded_stat",
    "prompt_doomed", "prompt_queued",
    "destroyed", "deck_sizes", "discard", "unseen_count",
    "march_from", "march_to", "march_moved", "doomed_count",
    "battle", "battle_province", "battle_pillager", "battle_participants", "battle_committed",
    "battle_revealed", "battle_cancelled", "battle_totals_shown", "battle_totals",
    "battle_winner", "battle_reveal_round", "battle_killed",
    "stat_steps", "hand", "pack", "pending_picks", "picks_left", "quests", "battle_card", "keep",
    "kept",
    "in_rage", "in_glory", "in_hand", "in_quests", "in_pack", "in_kept", "in_figures",
    "in_upgrades",
    "in_token", "in_pillaged", "in_ragnarok", "in_doom",
    "PROVINCES", "TOKENS", "CARDS", "LOCATIONS", "NUM_AREAS", "COMPARE_STAGE",
    "Phase.ACTION", "Step.DRAFT_PICK", "PromptKind.FREE_INVADE", "PromptKind.RAISE_STAT",
    "PromptKind.PROTECT", "PromptKind.SUCCOR", "PromptKind.BLESSING", "PromptKind.THORS_DOMAIN",
    "HIDDEN_CHOICE", "EMPTY", "DraftMode.NO_DRAFT", "DRAFT_KEEP",
    "Step.BATTLE_CARDS", "Step.DISCARD", "NOT_INVOLVED",
};

#define MAX_PLAYERS 5
#define MAX_FIGS 64

typedef struct {
    int ready;
    long v[P_COUNT];
} Plan;

static Plan plans[MAX_PLAYERS + 1];
static long fig_unit[MAX_FIGS];
static Py_ssize_t num_figs = 0;

/* Attribute names, interned once. */
static PyObject *s_players, *s_age, *s_phase, *s_step, *s_first_player, *s_turn, *s_prompts,
    *s_clans, *s_loc, *s_doomed, *s_destroyed, *s_token, *s_pillaged, *s_ragnarok, *s_decks,
    *s_discard, *s_unseen, *s_march, *s_march_moved, *s_battle, *s_province, *s_pillager,
    *s_stage, *s_winner, *s_participants, *s_choice, *s_revealed, *s_played, *s_totals,
    *s_cancelled, *s_reveals, *s_killed, *s_slots, *s_steps, *s_rage, *s_glory, *s_hand,
    *s_quests, *s_packs, *s_kept, *s_picks, *s_keep, *s_draft_mode;

typedef struct {
    float *x;
    Py_ssize_t n;
} Out;

static int out_of_range(Py_ssize_t i, Py_ssize_t n)
{
    PyErr_Format(PyExc_IndexError,
                 "the observation has %zd entries: the state asks for entry %zd "
                 "(a value outside the layout's ranges)", n, i);
    return -1;
}

static inline int put(Out *o, long i, float v)
{
    if (i < 0 || i >= o->n)
        return out_of_range(i, o->n);
    o->x[i] = v;
    return 0;
}

static inline int bump(Out *o, long i)
{
    if (i < 0 || i >= o->n)
        return out_of_range(i, o->n);
    o->x[i] += 1.0f;
    return 0;
}

static inline long rel(long who, long seat, long p)
{
    long r = (who - seat) % p;
    return r < 0 ? r + p : r;
}

/* A new reference to obj.name, or NULL with an exception. The engine's state classes keep
   their fields in __slots__: for an object whose type looks attributes up the generic way, a
   slot is read straight from the object (what the slot's descriptor would do, without the
   calls around it); anything else (a mypyc-compiled class, a property) goes through
   PyObject_GetAttr. */
static inline PyObject *attr(PyObject *obj, PyObject *name)
{
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp->tp_getattro == PyObject_GenericGetAttr) {
        PyObject *descr = _PyType_Lookup(tp, name); /* borrowed; the type's lookup cache */
        if (descr != NULL && Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
            PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
            if (m->type == T_OBJECT_EX && !(m->flags & PY_AUDIT_READ)) {
                PyObject *v = *(PyObject **)((char *)obj + m->offset);
                if (v != NULL) {
                    Py_INCREF(v);
                    return v;
                }
            }
        }
    }
    return PyObject_GetAttr(obj, name);
}

/* obj.name as a C long; -1 with an exception set on error (check PyErr_Occurred). */
static int attr_long(PyObject *obj, PyObject *name, long *out)
{
    PyObject *v = attr(obj, name);
    if (v == NULL)
        return -1;
    *out = PyLong_AsLong(v);
    Py_DECREF(v);
    if (*out == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

static int as_long(PyObject *v, long *out)
{
    *out = PyLong_AsLong(v);
    if (*out == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

/* A list (or tuple) attribute as a new reference to a list/tuple, checked. */
static PyObject *attr_seq(PyObject *obj, PyObject *name)
{
    PyObject *v = attr(obj, name);
    if (v == NULL)
        return NULL;
    if (!PyList_Check(v) && !PyTuple_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%R is a %.100s, not a list or tuple", name,
                     Py_TYPE(v)->tp_name);
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

#define SEQ_LEN(s) (PyList_Check(s) ? PyList_GET_SIZE(s) : PyTuple_GET_SIZE(s))
#define SEQ_ITEM(s, i) (PyList_Check(s) ? PyList_GET_ITEM(s, i) : PyTuple_GET_ITEM(s, i))

/* x[base + card] = 1 for every card of a sequence of ints. */
static int put_each(Out *o, PyObject *seq, long base)
{
    Py_ssize_t n = SEQ_LEN(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long card;
        if (as_long(SEQ_ITEM(seq, i), &card) < 0 || put(o, base + card, 1.0f) < 0)
            return -1;
    }
    return 0;
}

/* The same for obj.name. */
static int put_each_attr(Out *o, PyObject *obj, PyObject *name, long base)
{
    PyObject *seq = attr_seq(obj, name);
    if (seq == NULL)
        return -1;
    int rc = put_each(o, seq, base);
    Py_DECREF(seq);
    return rc;
}

/* len(obj.name) */
static Py_ssize_t attr_len(PyObject *obj, PyObject *name)
{
    PyObject *v = attr(obj, name);
    if (v == NULL)
        return -1;
    Py_ssize_t n = PyObject_Length(v);
    Py_DECREF(v);
    return n;
}

/* seq[i] as a long (i in range: the caller checked). */
static inline int item_long(PyObject *seq, Py_ssize_t i, long *out)
{
    if (i < 0 || i >= SEQ_LEN(seq)) {
        PyErr_Format(PyExc_IndexError, "index %zd of a sequence of %zd", i, SEQ_LEN(seq));
        return -1;
    }
    return as_long(SEQ_ITEM(seq, i), out);
}

static int encode_prompt(Out *o, const long *v, PyObject *s, long seat, long p, PyObject *clans)
{
    PyObject *prompts = attr_seq(s, s_prompts);
    if (prompts == NULL)
        return -1;
    int rc = -1;
    PyObject *loc = NULL, *doomed = NULL;
    Py_ssize_t queued = SEQ_LEN(prompts);
    if (queued == 0) {
        rc = 0;
        goto done;
    }
    PyObject *pr = SEQ_ITEM(prompts, 0);
    if (!PyTuple_Check(pr) || PyTuple_GET_SIZE(pr) < 3) {
        PyErr_SetString(PyExc_TypeError, "a prompt is a (kind, seat, a, b) tuple");
        goto done;
    }
    long kind, pseat, a;
    if (as_long(PyTuple_GET_ITEM(pr, 0), &kind) < 0 || as_long(PyTuple_GET_ITEM(pr, 1), &pseat) < 0
        || as_long(PyTuple_GET_ITEM(pr, 2), &a) < 0)
        goto done;
    if (put(o, v[P_PROMPT] + kind, 1.0f) < 0
        || put(o, v[P_PROMPT_SEAT] + rel(pseat, seat, p), 1.0f) < 0)
        goto done;
    if (kind == v[P_PROMPT_FREE_INVADE]) {
        if (put(o, v[P_PROMPT_UNIT] + a, 1.0f) < 0)
            goto done;
    }
    else if (kind == v[P_PROMPT_SUCCOR] || kind == v[P_PROMPT_BLESSING]
             || kind == v[P_PROMPT_THORS_DOMAIN]) {
        if (put(o, v[P_PROMPT_AREA] + a, 1.0f) < 0)
            goto done;
    }
    else if (kind == v[P_PROMPT_RAISE_STAT] && a >= 0) {
        if (put(o, v[P_PROMPT_EXCLUDED_STAT] + a, 1.0f) < 0)
            goto done;
    }
    if (kind == v[P_PROMPT_PROTECT]) {
        if (pseat < 0 || pseat >= SEQ_LEN(clans)) {
            PyErr_Format(PyExc_IndexError, "a prompt for seat %ld", pseat);
            goto done;
        }
        loc = attr_seq(SEQ_ITEM(clans, pseat), s_loc);
        doomed = loc ? attr_seq(s, s_doomed) : NULL;
        if (doomed == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < SEQ_LEN(doomed); i++) {
            PyObject *d = SEQ_ITEM(doomed, i);
            long ds, fig, where;
            if (!PyTuple_Check(d) || PyTuple_GET_SIZE(d) != 2) {
                PyErr_SetString(PyExc_TypeError, "a doomed figure is a (seat, figure) pair");
                goto done;
            }
            if (as_long(PyTuple_GET_ITEM(d, 0), &ds) < 0 || as_long(PyTuple_GET_ITEM(d, 1), &fig) < 0)
                goto done;
            if (ds != pseat)
                continue;
            if (fig < 0 || fig >= num_figs) {
                PyErr_Format(PyExc_IndexError, "no figure %ld", fig);
                goto done;
            }
            if (item_long(loc, fig, &where) < 0
                || bump(o, v[P_PROMPT_DOOMED] + fig_unit[fig] * v[P_NUM_AREAS] + where) < 0)
                goto done;
        }
    }
    rc = put(o, v[P_PROMPT_QUEUED], (float)(queued - 1));
done:
    Py_XDECREF(loc);
    Py_XDECREF(doomed);
    Py_DECREF(prompts);
    return rc;
}

static int encode_board(Out *o, const long *v, PyObject *s, long age)
{
    int rc = -1;
    PyObject *destroyed = attr_seq(s, s_destroyed);
    PyObject *token = destroyed ? attr_seq(s, s_token) : NULL;
    PyObject *pillaged = token ? attr_seq(s, s_pillaged) : NULL;
    PyObject *ragnarok = pillaged ? attr_seq(s, s_ragnarok) : NULL;
    if (ragnarok == NULL)
        goto done;
    long b = v[P_BOARD], provinces = v[P_PROVINCES];
    if (SEQ_LEN(destroyed) < provinces || SEQ_LEN(token) < provinces
        || SEQ_LEN(pillaged) < provinces) {
        PyErr_SetString(PyExc_ValueError, "the board's lists are shorter than its provinces");
        goto done;
    }
    for (long pv = 0; pv < provinces; pv++) {
        int t = PyObject_IsTrue(SEQ_ITEM(destroyed, pv));
        long tok;
        if (t < 0 || (t && put(o, b + pv, 1.0f) < 0))
            goto done;
        if (as_long(SEQ_ITEM(token, pv), &tok) < 0)
            goto done;
        if (tok >= 0 && put(o, b + v[P_IN_TOKEN] + pv * v[P_TOKENS] + tok, 1.0f) < 0)
            goto done;
        t = PyObject_IsTrue(SEQ_ITEM(pillaged, pv));
        if (t < 0 || (t && put(o, b + v[P_IN_PILLAGED] + pv, 1.0f) < 0))
            goto done;
    }
    Py_ssize_t ages = SEQ_LEN(ragnarok);
    for (Py_ssize_t i = 0; i < ages; i++) {
        long pv;
        if (as_long(SEQ_ITEM(ragnarok, i), &pv) < 0)
            goto done;
        if (pv >= 0 && put(o, b + v[P_IN_RAGNAROK] + pv * 3 + (long)i, 1.0f) < 0)
            goto done;
    }
    /* The Doom: the first province of ragnarok[age - 1:] not yet destroyed. */
    Py_ssize_t from = (Py_ssize_t)age - 1;
    if (from < 0)
        from += ages;
    if (from < 0)
        from = 0;
    for (Py_ssize_t i = from; i < ages; i++) {
        long pv;
        if (as_long(SEQ_ITEM(ragnarok, i), &pv) < 0)
            goto done;
        if (pv < 0)
            continue;
        if (pv >= SEQ_LEN(destroyed)) {
            PyErr_Format(PyExc_IndexError, "Ragnarok names province %ld", pv);
            goto done;
        }
        int t = PyObject_IsTrue(SEQ_ITEM(destroyed, pv));
        if (t < 0)
            goto done;
        if (!t) {
            if (put(o, b + v[P_IN_DOOM] + pv, 1.0f) < 0)
                goto done;
            break;
        }
    }
    rc = 0;
done:
    Py_XDECREF(destroyed);
    Py_XDECREF(token);
    Py_XDECREF(pillaged);
    Py_XDECREF(ragnarok);
    return rc;
}

static int encode_battle(Out *o, const long *v, PyObject *b, long seat, long p)
{
    int rc = -1;
    PyObject *participants = NULL, *choice = NULL, *played = NULL, *totals = NULL,
             *cancelled = NULL, *killed = NULL;
    long province, pillager, stage, winner, reveals;
    int revealed;
    if (put(o, v[P_BATTLE], 1.0f) < 0 || attr_long(b, s_province, &province) < 0
        || put(o, v[P_BATTLE_PROVINCE] + province, 1.0f) < 0
        || attr_long(b, s_pillager, &pillager) < 0
        || put(o, v[P_BATTLE_PILLAGER] + rel(pillager, seat, p), 1.0f) < 0
        || attr_long(b, s_stage, &stage) < 0 || attr_long(b, s_winner, &winner) < 0
        || attr_long(b, s_reveals, &reveals) < 0)
        goto done;
    PyObject *rv = attr(b, s_revealed);
    if (rv == NULL)
        goto done;
    revealed = PyObject_IsTrue(rv);
    Py_DECREF(rv);
    if (revealed < 0)
        goto done;
    int shown = stage > v[P_COMPARE_STAGE];
    if (shown) {
        if (put(o, v[P_BATTLE_TOTALS_SHOWN], 1.0f) < 0)
            goto done;
        if (winner >= 0 && put(o, v[P_BATTLE_WINNER] + rel(winner, seat, p), 1.0f) < 0)
            goto done;
    }
    participants = attr_seq(b, s_participants);
    choice = participants ? attr_seq(b, s_choice) : NULL;
    played = choice ? attr_seq(b, s_played) : NULL;
    totals = played ? attr_seq(b, s_totals) : NULL;
    if (totals == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < SEQ_LEN(participants); i++) {
        long who, ch;
        if (as_long(SEQ_ITEM(participants, i), &who) < 0 || item_long(choice, who, &ch) < 0)
            goto done;
        long r = rel(who, seat, p);
        if (put(o, v[P_BATTLE_PARTICIPANTS] + r, 1.0f) < 0)
            goto done;
        if (!revealed && (ch >= 0 || ch == v[P_HIDDEN_CHOICE])
            && put(o, v[P_BATTLE_COMMITTED] + r, 1.0f) < 0)
            goto done;
        if (who < 0 || who >= SEQ_LEN(played)) {
            PyErr_Format(PyExc_IndexError, "a battle participant %ld", who);
            goto done;
        }
        PyObject *cards = SEQ_ITEM(played, who);
        if (!PyList_Check(cards) && !PyTuple_Check(cards)) {
            PyErr_SetString(PyExc_TypeError, "a seat's played cards are a list");
            goto done;
        }
        if (put_each(o, cards, v[P_BATTLE_REVEALED] + r * v[P_CARDS]) < 0)
            goto done;
        if (shown) {
            long total;
            if (item_long(totals, who, &total) < 0
                || put(o, v[P_BATTLE_TOTALS] + r, (float)total) < 0)
                goto done;
        }
    }
    cancelled = attr_seq(b, s_cancelled);
    if (cancelled == NULL || put_each(o, cancelled, v[P_BATTLE_CANCELLED]) < 0)
        goto done;
    if (put(o, v[P_BATTLE_REVEAL_ROUND], (float)reveals) < 0)
        goto done;
    killed = attr_seq(b, s_killed);
    if (killed == NULL)
        goto done;
    for (long who = 0; who < p; who++) {
        long k;
        if (item_long(killed, who, &k) < 0
            || put(o, v[P_BATTLE_KILLED] + rel(who, seat, p), (float)k) < 0)
            goto done;
    }
    rc = 0;
done:
    Py_XDECREF(participants);
    Py_XDECREF(choice);
    Py_XDECREF(played);
    Py_XDECREF(totals);
    Py_XDECREF(cancelled);
    Py_XDECREF(killed);
    return rc;
}

/* One seat's block: figures, upgrades, stat steps, Rage, Glory, counts, the kept card. */
static int encode_clan(Out *o, const long *v, PyObject *c, PyObject *pack, long base)
{
    int rc = -1;
    PyObject *loc = attr_seq(c, s_loc);
    PyObject *slots = loc ? attr_seq(c, s_slots) : NULL;
    PyObject *steps = slots ? attr_seq(c, s_steps) : NULL;
    if (steps == NULL)
        goto done;
    Py_ssize_t figs = SEQ_LEN(loc);
    if (figs > num_figs) {
        PyErr_Format(PyExc_ValueError, "a clan with %zd figures (the layout knows %zd)", figs,
                     num_figs);
        goto done;
    }
    long figures = base + v[P_IN_FIGURES], locations = v[P_LOCATIONS];
    for (Py_ssize_t fig = 0; fig < figs; fig++) {
        long where;
        if (as_long(SEQ_ITEM(loc, fig), &where) < 0)
            goto done;
        if (where < locations && bump(o, figures + fig_unit[fig] * locations + where) < 0)
            goto done;
    }
    long upgrades = base + v[P_IN_UPGRADES], cards = v[P_CARDS];
    for (Py_ssize_t slot = 0; slot < SEQ_LEN(slots); slot++) {
        long card;
        if (as_long(SEQ_ITEM(slots, slot), &card) < 0)
            goto done;
        if (card >= 0 && put(o, upgrades + (long)slot * cards + card, 1.0f) < 0)
            goto done;
    }
    for (Py_ssize_t i = 0; i < 3; i++) {
        long step;
        if (item_long(steps, i, &step) < 0 || put(o, base + 6 * (long)i + step, 1.0f) < 0)
            goto done;
    }
    long rage, glory, kept;
    Py_ssize_t hand, quests, packed = PyObject_Length(pack);
    if (attr_long(c, s_rage, &rage) < 0 || attr_long(c, s_glory, &glory) < 0
        || attr_long(c, s_kept, &kept) < 0 || (hand = attr_len(c, s_hand)) < 0
        || (quests = attr_len(c, s_quests)) < 0 || packed < 0)
        goto done;
    if (put(o, base + v[P_IN_RAGE], (float)rage) < 0
        || put(o, base + v[P_IN_GLORY], (float)glory) < 0
        || put(o, base + v[P_IN_HAND], (float)hand) < 0
        || put(o, base + v[P_IN_QUESTS], (float)quests) < 0
        || put(o, base + v[P_IN_PACK], (float)packed) < 0)
        goto done;
    if (kept != v[P_EMPTY] && put(o, base + v[P_IN_KEPT], 1.0f) < 0)
        goto done;
    rc = 0;
done:
    Py_XDECREF(loc);
    Py_XDECREF(slots);
    Py_XDECREF(steps);
    return rc;
}

/* The viewer's own cards: hand, pack, this round's picks, quests, secret choices, kept. */
static int encode_own(Out *o, const long *v, PyObject *s, PyObject *me, PyObject *pack,
                      PyObject *battle, long seat, long p, long step)
{
    int rc = -1;
    PyObject *hand = attr_seq(me, s_hand), *picks = NULL, *keep = NULL, *choice = NULL;
    if (hand == NULL || put_each(o, hand, v[P_HAND]) < 0 || put_each(o, pack, v[P_PACK]) < 0)
        goto done;
    if (step == v[P_STEP_DRAFT_PICK]) {
        long left, mode;
        picks = attr_seq(s, s_picks);
        if (picks == NULL || item_long(picks, seat, &left) < 0
            || put(o, v[P_PICKS_LEFT], (float)left) < 0 || attr_long(s, s_draft_mode, &mode) < 0)
            goto done;
        /* draft.picks_per_round */
        long per_round = mode == v[P_NO_DRAFT] ? v[P_DRAFT_KEEP] : (p == 2 ? 2 : 1);
        long taken = per_round - left;
        if (taken > 0) {
            /* hand[len(hand) - taken:], with Python's slice bounds */
            Py_ssize_t n = SEQ_LEN(hand), from = n - taken;
            if (from < 0)
                from += n;
            if (from < 0)
                from = 0;
            for (Py_ssize_t i = from; i < n; i++) {
                long card;
                if (as_long(SEQ_ITEM(hand, i), &card) < 0
                    || put(o, v[P_PENDING_PICKS] + card, 1.0f) < 0)
                    goto done;
            }
        }
    }
    if (put_each_attr(o, me, s_quests, v[P_QUESTS]) < 0)
        goto done;
    if (battle != Py_None) {
        PyObject *rv = attr(battle, s_revealed);
        if (rv == NULL)
            goto done;
        int revealed = PyObject_IsTrue(rv);
        Py_DECREF(rv);
        if (revealed < 0)
            goto done;
        if (!revealed) {
            long ch;
            choice = attr_seq(battle, s_choice);
            if (choice == NULL || item_long(choice, seat, &ch) < 0)
                goto done;
            if (ch >= 0 && put(o, v[P_BATTLE_CARD] + ch, 1.0f) < 0)
                goto done;
        }
    }
    long k, kept;
    keep = attr_seq(s, s_keep);
    if (keep == NULL || item_long(keep, seat, &k) < 0)
        goto done;
    if (k >= 0 && put(o, v[P_KEEP] + k, 1.0f) < 0)
        goto done;
    if (attr_long(me, s_kept, &kept) < 0)
        goto done;
    if (kept >= 0 && put(o, v[P_KEPT] + kept, 1.0f) < 0)
        goto done;
    rc = 0;
done:
    Py_XDECREF(hand);
    Py_XDECREF(picks);
    Py_XDECREF(keep);
    Py_XDECREF(choice);
    return rc;
}

/* The seats awaited, and while seats choose in secret (flow.is_simultaneous: no offer
   pending, a draft pick, battle cards or the card kept), those of the choice that already
   chose (encoding._involved: a battle's participants, the seats with a card to keep or a
   choice made, else every seat). */
static int encode_awaited(Out *o, const long *v, PyObject *s, long seat, long p, long step,
                          PyObject *awaited, PyObject *clans, PyObject *battle)
{
    int waiting[MAX_PLAYERS] = {0}, involved[MAX_PLAYERS] = {0};
    for (Py_ssize_t i = 0; i < SEQ_LEN(awaited); i++) {
        long w;
        if (as_long(SEQ_ITEM(awaited, i), &w) < 0)
            return -1;
        if (w < 0 || w >= p) {
            PyErr_Format(PyExc_ValueError, "awaited seat %ld in a %ld-player game", w, p);
            return -1;
        }
        waiting[w] = 1;
        if (put(o, v[P_AWAITING] + rel(w, seat, p), 1.0f) < 0)
            return -1;
    }
    Py_ssize_t prompts = attr_len(s, s_prompts);
    if (prompts < 0)
        return -1;
    if (prompts > 0
        || (step != v[P_STEP_DRAFT_PICK] && step != v[P_STEP_BATTLE_CARDS]
            && step != v[P_STEP_DISCARD]))
        return 0;
    if (put(o, v[P_SIMULTANEOUS], 1.0f) < 0)
        return -1;
    int rc = -1;
    PyObject *a = NULL, *b = NULL;
    if (step == v[P_STEP_BATTLE_CARDS] && battle != Py_None) {
        a = attr_seq(battle, s_participants);
        b = a ? attr_seq(battle, s_choice) : NULL;
        if (b == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < SEQ_LEN(a); i++) {
            long w, ch;
            if (as_long(SEQ_ITEM(a, i), &w) < 0 || item_long(b, w, &ch) < 0)
                goto done;
            if (w < 0 || w >= p) {
                PyErr_Format(PyExc_ValueError, "a battle participant %ld", w);
                goto done;
            }
            involved[w] = ch != v[P_NOT_INVOLVED];
        }
    }
    else if (step == v[P_STEP_DISCARD]) {
        a = attr_seq(s, s_keep);
        if (a == NULL)
            goto done;
        for (long w = 0; w < p; w++) {
            long k;
            if (item_long(a, w, &k) < 0)
                goto done;
            if (k != v[P_NOT_INVOLVED]) {
                involved[w] = 1;
                continue;
            }
            Py_ssize_t held = attr_len(SEQ_ITEM(clans, w), s_hand);
            if (held < 0)
                goto done;
            involved[w] = held > 0;
        }
    }
    else {
        for (long w = 0; w < p; w++)
            involved[w] = 1;
    }
    for (long w = 0; w < p; w++)
        if (involved[w] && !waiting[w] && put(o, v[P_COMMITTED] + rel(w, seat, p), 1.0f) < 0)
            goto done;
    rc = 0;
done:
    Py_XDECREF(a);
    Py_XDECREF(b);
    return rc;
}

static int encode_state(Out *o, PyObject *s, long seat, PyObject *awaited)
{
    long p, age, phase, step, first, turn;
    if (attr_long(s, s_players, &p) < 0)
        return -1;
    if (p < 1 || p > MAX_PLAYERS || !plans[p].ready) {
        PyErr_Format(PyExc_ValueError, "no layout configured for %ld players", p);
        return -1;
    }
    const long *v = plans[p].v;
    if (o->n != v[P_SIZE]) {
        PyErr_Format(PyExc_ValueError, "the buffer holds %zd numbers, the layout %ld", o->n,
                     v[P_SIZE]);
        return -1;
    }
    if (seat < 0 || seat >= p) {
        PyErr_Format(PyExc_ValueError, "no seat %ld in a %ld-player game", seat, p);
        return -1;
    }
    if (attr_long(s, s_age, &age) < 0 || attr_long(s, s_phase, &phase) < 0
        || attr_long(s, s_step, &step) < 0 || attr_long(s, s_first_player, &first) < 0
        || attr_long(s, s_turn, &turn) < 0)
        return -1;
    if (put(o, v[P_VIEWER] + seat, 1.0f) < 0 || put(o, v[P_AGE] + age - 1, 1.0f) < 0
        || put(o, v[P_PHASE] + phase, 1.0f) < 0 || put(o, v[P_STEP] + step, 1.0f) < 0
        || put(o, v[P_FIRST_PLAYER] + rel(first, seat, p), 1.0f) < 0)
        return -1;
    if (phase == v[P_PHASE_ACTION] && put(o, v[P_TURN] + rel(turn, seat, p), 1.0f) < 0)
        return -1;

    int rc = -1;
    PyObject *clans = NULL, *packs = NULL, *decks = NULL, *march = NULL, *battle = NULL,
             *seq = NULL;
    clans = attr_seq(s, s_clans);
    packs = clans ? attr_seq(s, s_packs) : NULL;
    if (packs == NULL)
        goto done;
    if (SEQ_LEN(clans) < p || SEQ_LEN(packs) < p) {
        PyErr_SetString(PyExc_ValueError, "fewer clans or packs than players");
        goto done;
    }
    if (encode_prompt(o, v, s, seat, p, clans) < 0 || encode_board(o, v, s, age) < 0)
        goto done;
    decks = attr_seq(s, s_decks);
    if (decks == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < SEQ_LEN(decks); i++) {
        Py_ssize_t n = PyObject_Length(SEQ_ITEM(decks, i));
        if (n < 0 || put(o, v[P_DECK_SIZES] + (long)i, (float)n) < 0)
            goto done;
    }
    Py_ssize_t n;
    if (put_each_attr(o, s, s_discard, v[P_DISCARD]) < 0 || (n = attr_len(s, s_unseen)) < 0
        || put(o, v[P_UNSEEN_COUNT], (float)n) < 0)
        goto done;
    march = attr(s, s_march);
    if (march == NULL)
        goto done;
    if (march != Py_None) {
        long from, to;
        if (!PyTuple_Check(march) || PyTuple_GET_SIZE(march) < 2) {
            PyErr_SetString(PyExc_TypeError, "a march is a (from, to) tuple");
            goto done;
        }
        if (as_long(PyTuple_GET_ITEM(march, 0), &from) < 0
            || as_long(PyTuple_GET_ITEM(march, 1), &to) < 0
            || put(o, v[P_MARCH_FROM] + from, 1.0f) < 0 || put(o, v[P_MARCH_TO] + to, 1.0f) < 0)
            goto done;
        seq = attr_seq(s, s_march_moved);
        if (seq == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < SEQ_LEN(seq); i++) {
            long unit;
            if (as_long(SEQ_ITEM(seq, i), &unit) < 0 || bump(o, v[P_MARCH_MOVED] + unit) < 0)
                goto done;
        }
    }
    if ((n = attr_len(s, s_doomed)) < 0 || put(o, v[P_DOOMED_COUNT], (float)n) < 0)
        goto done;
    battle = attr(s, s_battle);
    if (battle == NULL || (battle != Py_None && encode_battle(o, v, battle, seat, p) < 0))
        goto done;
    if (encode_awaited(o, v, s, seat, p, step, awaited, clans, battle) < 0)
        goto done;
    for (long who = 0; who < p; who++) {
        long base = v[P_BLOCK] + rel(who, seat, p) * v[P_STRIDE];
        if (encode_clan(o, v, SEQ_ITEM(clans, who), SEQ_ITEM(packs, who), base) < 0)
            goto done;
    }
    PyObject *pack = SEQ_ITEM(packs, seat);
    if (!PyList_Check(pack) && !PyTuple_Check(pack)) {
        PyErr_SetString(PyExc_TypeError, "a draft pack is a list");
        goto done;
    }
    rc = encode_own(o, v, s, SEQ_ITEM(clans, seat), pack, battle, seat, p, step);
done:
    Py_XDECREF(clans);
    Py_XDECREF(packs);
    Py_XDECREF(decks);
    Py_XDECREF(march);
    Py_XDECREF(battle);
    Py_XDECREF(seq);
    return rc;
}

PyDoc_STRVAR(encode_doc,
"encode(buffer, state, seat, awaited)\n--\n\n"
"Write seat's observation of state into buffer (a writable float32 buffer of zeros, the\n"
"layout's size), awaited being the seats the rules await: every field but the battle's\n"
"strengths and a finished game's results, which envs.blood_rage.encoding adds.");

static PyObject *fast_encode(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || (!PyList_Check(args[3]) && !PyTuple_Check(args[3]))) {
        PyErr_SetString(PyExc_TypeError, "encode(buffer, state, seat, awaited: list)");
        return NULL;
    }
    long seat = PyLong_AsLong(args[2]);
    if (seat == -1 && PyErr_Occurred())
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        return NULL;
    int rc;
    if (view.itemsize != 4 || view.format == NULL || strcmp(view.format, "f") != 0) {
        PyErr_SetString(PyExc_TypeError, "the buffer must hold float32 numbers");
        rc = -1;
    }
    else {
        Out o = {(float *)view.buf, view.len / 4};
        rc = encode_state(&o, args[1], seat, args[3]);
    }
    PyBuffer_Release(&view);
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(configure_doc,
"configure(plan, fig_unit)\n--\n\n"
"Take the layout of one player count: plan holds a number per name of PLAN, in its order;\n"
"fig_unit the unit of every figure number.");

static PyObject *fast_configure(PyObject *self, PyObject *args)
{
    PyObject *plan, *units;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &plan, &PyTuple_Type, &units))
        return NULL;
    if (PyTuple_GET_SIZE(plan) != P_COUNT) {
        PyErr_Format(PyExc_ValueError, "the plan has %d numbers, not %zd", P_COUNT,
                     PyTuple_GET_SIZE(plan));
        return NULL;
    }
    if (PyTuple_GET_SIZE(units) > MAX_FIGS) {
        PyErr_Format(PyExc_ValueError, "at most %d figures a clan", MAX_FIGS);
        return NULL;
    }
    Plan fresh = {1, {0}};
    for (Py_ssize_t i = 0; i < P_COUNT; i++)
        if (as_long(PyTuple_GET_ITEM(plan, i), &fresh.v[i]) < 0)
            return NULL;
    long p = fresh.v[P_PLAYERS];
    if (p < 1 || p > MAX_PLAYERS) {
        PyErr_Format(PyExc_ValueError, "%ld players", p);
        return NULL;
    }
    long units_read[MAX_FIGS];
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(units); i++)
        if (as_long(PyTuple_GET_ITEM(units, i), &units_read[i]) < 0)
            return NULL;
    memcpy(fig_unit, units_read, sizeof(long) * (size_t)PyTuple_GET_SIZE(units));
    num_figs = PyTuple_GET_SIZE(units);
    plans[p] = fresh;
    Py_RETURN_NONE;
}

/* The action catalogue: where each kind's block starts and the ranges of its (a, b, c). */
#define MAX_KINDS 64
static long kind_start[MAX_KINDS], kind_range[MAX_KINDS][3];
static Py_ssize_t num_kinds = 0;

PyDoc_STRVAR(configure_actions_doc,
"configure_actions(blocks)\n--\n\n"
"Take the action catalogue: one (start, na, nb, nc) per action kind, by kind number.");

static PyObject *fast_configure_actions(PyObject *self, PyObject *blocks)
{
    if (!PyTuple_Check(blocks) || PyTuple_GET_SIZE(blocks) > MAX_KINDS) {
        PyErr_Format(PyExc_ValueError, "a tuple of at most %d blocks", MAX_KINDS);
        return NULL;
    }
    long read[MAX_KINDS][4];
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(blocks); k++) {
        PyObject *block = PyTuple_GET_ITEM(blocks, k);
        if (!PyTuple_Check(block) || PyTuple_GET_SIZE(block) != 4) {
            PyErr_SetString(PyExc_ValueError, "a block is (start, na, nb, nc)");
            return NULL;
        }
        for (Py_ssize_t j = 0; j < 4; j++)
            if (as_long(PyTuple_GET_ITEM(block, j), &read[k][j]) < 0)
                return NULL;
    }
    num_kinds = PyTuple_GET_SIZE(blocks);
    for (Py_ssize_t k = 0; k < num_kinds; k++) {
        kind_start[k] = read[k][0];
        for (int j = 0; j < 3; j++)
            kind_range[k][j] = read[k][j + 1];
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(indices_doc,
"indices(actions, mask)\n--\n\n"
"The catalogue index of every action of a list of (kind, a, b, c) tuples, in order; each is\n"
"also set to 1 in mask (a writable buffer of bytes). KeyError for an action the catalogue\n"
"lacks, RuntimeError for two actions with the same index.");

static PyObject *fast_indices(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || (!PyList_Check(args[0]) && !PyTuple_Check(args[0]))) {
        PyErr_SetString(PyExc_TypeError, "indices(actions: list or tuple, mask)");
        return NULL;
    }
    PyObject *actions = args[0];
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_WRITABLE) < 0)
        return NULL;
    unsigned char *mask = (unsigned char *)view.buf;
    Py_ssize_t n = SEQ_LEN(actions);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = SEQ_ITEM(actions, i);
        long f[4];
        if (!PyTuple_Check(a) || PyTuple_GET_SIZE(a) != 4) {
            PyErr_Format(PyExc_TypeError, "an action is a (kind, a, b, c) tuple, not %R", a);
            goto fail;
        }
        for (int j = 0; j < 4; j++)
            if (as_long(PyTuple_GET_ITEM(a, j), &f[j]) < 0)
                goto fail;
        long kind = f[0];
        if (kind < 0 || kind >= num_kinds || f[1] < 0 || f[1] >= kind_range[kind][0] || f[2] < 0
            || f[2] >= kind_range[kind][1] || f[3] < 0 || f[3] >= kind_range[kind][2]) {
            PyErr_SetObject(PyExc_KeyError, a);
            goto fail;
        }
        long index = kind_start[kind] + (f[1] * kind_range[kind][1] + f[2]) * kind_range[kind][2]
                     + f[3];
        if (index >= view.len) {
            PyErr_Format(PyExc_ValueError, "the mask has %zd entries, not %ld", view.len, index + 1);
            goto fail;
        }
        if (mask[index]) {
            PyErr_Format(PyExc_RuntimeError, "two legal actions share the catalogue index %ld",
                         index);
            goto fail;
        }
        mask[index] = 1;
        PyObject *number = PyLong_FromLong(index);
        if (number == NULL)
            goto fail;
        PyList_SET_ITEM(out, i, number);
    }
    PyBuffer_Release(&view);
    return out;
fail:
    PyBuffer_Release(&view);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef fast_methods[] = {
    {"indices", (PyCFunction)(void (*)(void))fast_indices, METH_FASTCALL, indices_doc},
    {"configure_actions", fast_configure_actions, METH_O, configure_actions_doc},
    {"encode", (PyCFunction)(void (*)(void))fast_encode, METH_FASTCALL, encode_doc},
    {"configure", fast_configure, METH_VARARGS, configure_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef fast_module = {
    PyModuleDef_HEAD_INIT, "envs.blood_rage._fast",
    "Blood Rage's observation tensor in C (see envs/blood_rage/encoding.py).", -1, fast_methods,
};

#define INTERN(var, text)                                                                 \
    do {                                                                                  \
        if ((var = PyUnicode_InternFromString(text)) == NULL)                             \
            return NULL;                                                                  \
    } while (0)

PyMODINIT_FUNC PyInit__fast(void)
{
    INTERN(s_players, "players");
    INTERN(s_age, "age");
    INTERN(s_phase, "phase");
    INTERN(s_step, "step");
    INTERN(s_first_player, "first_player");
    INTERN(s_turn, "turn");
    INTERN(s_prompts, "prompts");
    INTERN(s_clans, "clans");
    INTERN(s_loc, "loc");
    INTERN(s_doomed, "doomed");
    INTERN(s_destroyed, "destroyed");
    INTERN(s_token, "token");
    INTERN(s_pillaged, "pillaged");
    INTERN(s_ragnarok, "ragnarok");
    INTERN(s_decks, "decks");
    INTERN(s_discard, "discard");
    INTERN(s_unseen, "unseen");
    INTERN(s_march, "march");
    INTERN(s_march_moved, "march_moved");
    INTERN(s_battle, "battle");
    INTERN(s_province, "province");
    INTERN(s_pillager, "pillager");
    INTERN(s_stage, "stage");
    INTERN(s_winner, "winner");
    INTERN(s_participants, "participants");
    INTERN(s_choice, "choice");
    INTERN(s_revealed, "revealed");
    INTERN(s_played, "played");
    INTERN(s_totals, "totals");
    INTERN(s_cancelled, "cancelled");
    INTERN(s_reveals, "reveals");
    INTERN(s_killed, "killed");
    INTERN(s_slots, "slots");
    INTERN(s_steps, "steps");
    INTERN(s_rage, "rage");
    INTERN(s_glory, "glory");
    INTERN(s_hand, "hand");
    INTERN(s_quests, "quests");
    INTERN(s_packs, "packs");
    INTERN(s_kept, "kept");
    INTERN(s_picks, "picks");
    INTERN(s_keep, "keep");
    INTERN(s_draft_mode, "draft_mode");
    PyObject *m = PyModule_Create(&fast_module);
    if (m == NULL)
        return NULL;
    PyObject *names = PyTuple_New(P_COUNT);
    if (names == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < P_COUNT; i++) {
        PyObject *name = PyUnicode_FromString(PLAN_NAMES[i]);
        if (name == NULL) {
            Py_DECREF(names);
            goto fail;
        }
        PyTuple_SET_ITEM(names, i, name);
    }
    if (PyModule_AddObject(m, "PLAN", names) < 0) {
        Py_DECREF(names);
        goto fail;
    }
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
