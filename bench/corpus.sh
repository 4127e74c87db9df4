#!/usr/bin/env bash
# bench/corpus.sh [OUT]: the 40 real photographs that outside benchmarks run thumbd on, built
# into OUT (default .build/bench/corpus) from Debian's mate-backgrounds and lomiri-wallpapers:
# 25 wallpapers as they ship (1,000 to 4,350 px, many progressive), the three larger ones
# resized to 4,000 px, and twelve of them resized to 1,000 or 1,600 px (baseline, Q=90).
# Prints the folder. Idempotent: a folder with 40 photographs is kept.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/bench/corpus}"
bg=/usr/share/backgrounds
scripts/ensure-deps.sh vips=libvips-tools "$bg/mate/nature=mate-backgrounds" \
    "$bg/Bridge_by_Sander_Klootwijk.jpg=lomiri-wallpapers-16.04" "$bg/Kleiber_by_Lukas_Baubkus.jpg=lomiri-wallpapers-20.04" >&2
if [ "$(ls "$out"/*.jpg 2>/dev/null | wc -l)" -eq 40 ]; then echo "$out"; exit 0; fi
rm -rf "$out"
mkdir -p "$out"
# name, then the long edge (0: the file as it ships), then the source under $bg.
while read -r name edge source; do
    [ -n "$name" ] || continue
    if [ "$edge" = 0 ]; then
        cp "$bg/$source" "$out/$name.jpg"
    else
        vipsthumbnail "$bg/$source" -s "$edge" -o "$out/${name}_$edge.jpg[Q=90]"
    fi
done <<'LIST'
aqua 0 mate/nature/Aqua.jpg
blinds 0 mate/nature/Blinds.jpg
dune 0 mate/nature/Dune.jpg
freshflower 0 mate/nature/FreshFlower.jpg
garden 0 mate/nature/Garden.jpg
greenmeadow 0 mate/nature/GreenMeadow.jpg
ladybird 0 mate/nature/LadyBird.jpg
raindrops 0 mate/nature/RainDrops.jpg
storm 0 mate/nature/Storm.jpg
twowings 0 mate/nature/TwoWings.jpg
wood 0 mate/nature/Wood.jpg
yellowflower 0 mate/nature/YellowFlower.jpg
fig 0 Picture_0B_by_freespace.jpg
brushes 0 Picture_1A_by_freespace.jpg
wine 0 Wine_by_Jakkub_Mede.jpg
aitzgorri 0 aitzgorri_by_Aitzol_Berasategi.jpg
analogpattern 0 analogpattern_by_Peter_Nerlich.jpg
free 0 free_by_Peter_Nerlich.jpg
friends 0 friends_by_Aitzol_Berasategi.jpg
greentock 0 greentock_by_Peter_Nerlich.jpg
life 0 life_by_Aitzol_Berasategi.jpg
picos 0 picosdeeuropa_by_Aitzol_Berasategi.jpg
bridge 0 Bridge_by_Sander_Klootwijk.jpg
dragonfly 0 Dragonfly_by_Bolly.jpg
sunset 0 sunset_by_Aitzol_Berasategi.jpg
seeding 4000 seeding_by_Clements_Engelhardt.jpg
kleiber 4000 Kleiber_by_Lukas_Baubkus.jpg
elephants 4000 mate/abstract/Elephants_5640x3172.jpg
bridge 1000 Bridge_by_Sander_Klootwijk.jpg
dragonfly 1000 Dragonfly_by_Bolly.jpg
sunset 1000 sunset_by_Aitzol_Berasategi.jpg
seeding 1000 seeding_by_Clements_Engelhardt.jpg
kleiber 1000 Kleiber_by_Lukas_Baubkus.jpg
picos 1000 picosdeeuropa_by_Aitzol_Berasategi.jpg
aitzgorri 1600 aitzgorri_by_Aitzol_Berasategi.jpg
life 1600 life_by_Aitzol_Berasategi.jpg
friends 1600 friends_by_Aitzol_Berasategi.jpg
wine 1600 Wine_by_Jakkub_Mede.jpg
analogpattern 1600 analogpattern_by_Peter_Nerlich.jpg
greentock 1600 greentock_by_Peter_Nerlich.jpg
LIST
[ "$(ls "$out"/*.jpg | wc -l)" -eq 40 ] || { echo "bench/corpus.sh: expected 40 photographs in $out" >&2; exit 1; }
echo "$out"
