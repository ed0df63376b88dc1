"""What notebooks and the command line call (layer 3): workflows over the spec, the data and the
stores (:mod:`.workflows`), the design session (:mod:`.session`), the size what-if
(:mod:`.whatif`), the heat report files (:mod:`.reports`) and notebook tables (:mod:`.frames`)."""
