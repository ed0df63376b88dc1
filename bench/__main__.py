from bench.loop import main

main()
