# The CDF of |CPU util - GPU util| over time (scripts/aiturbo-cpu-gap; docs/validation.md#aiturbo).
# Call: gnuplot -e "data='FILE'; out='PNG'" scripts/aiturbo-cpu-gap.gp
set terminal pngcairo size 800,500 noenhanced
set output out
set title "|CPU util - GPU util| over time, aiturbo-mix 50:50 with PS and worker cores"
set xlabel "|CPU util - GPU util| (%)"
set ylabel "share of the time with a gap at most x"
set xrange [0:100]
set yrange [0:1]
set grid
set key bottom right
set arrow from 60, graph 0 to 60, graph 1 nohead dashtype 2 lc rgb "gray40"
set arrow from 40, graph 0 to 40, graph 1 nohead dashtype 2 lc rgb "gray40"
set label "slide 26: 80% of the time under 60% before, under 40% after" at 30, 0.12
plot data using 1:2 with steps lw 2 title "before: tiresias", \
     data using 1:3 with steps lw 2 title "after: aiturbo"
