"""sctpbench's tests, in folders by kind: unit/ (no kernel), guest/ (kernel SCTP and netem in the
User-Mode Linux guest), lab/ (a lab of guests), browser/ (pages driven in headless Chromium,
also on a guest). support/ holds what several tests share; data/ their inputs and expected outputs.
"""
