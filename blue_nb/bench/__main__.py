from blue_nb.bench.loop import main

main()
