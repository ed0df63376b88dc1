from blue_nb.bench.run import main

main()
