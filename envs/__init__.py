"""Learning environments for every game with an encoding, from the same engine the server runs.

The fourth layer of the code (docs/architecture.md): it imports ``engine`` (the rules, through
the contract and the registry), and for the remote seat ``clients`` and ``protocol``; never
``server``. It is an optional extra (``pip install -e .[envs]``: numpy, Gymnasium, PettingZoo,
OpenSpiel), so nothing else imports it.

* ``envs.aec.env`` / ``envs.parallel.parallel_env``: PettingZoo's AEC and Parallel APIs;
* ``envs.openspiel``: the games registered with OpenSpiel
  (``pyspiel.load_game("yggdrasil_blood_rage")``);
* ``envs.remote``: one seat played over PlaySession against a live server, with the same
  observation, so a policy trained locally enters a tournament unchanged;
* ``envs.encoding``: what a game provides (its observation layout and action catalogue);
  ``envs.blood_rage`` is Blood Rage's; ``envs.table`` the game room they all drive.

docs/bots.md is the guide.
"""
