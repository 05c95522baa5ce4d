# fish completion for orientationctl(1)
set -l commands get monitor lock unlock replay record
set -l orientations normal left-up bottom-up right-up
complete -c orientationctl -f
complete -c orientationctl -l system -d 'The daemon on the system bus'
complete -c orientationctl -l session -d 'The daemon on the session bus'
complete -c orientationctl -l address -r -d 'The daemon on the bus at ADDRESS'
complete -c orientationctl -s h -l help -d 'Show the help'
complete -c orientationctl -n "not __fish_seen_subcommand_from $commands" -l version -d 'Show the version'
complete -c orientationctl -n "not __fish_seen_subcommand_from $commands" -a get -d 'Print the sensor, orientation and tilt'
complete -c orientationctl -n "not __fish_seen_subcommand_from $commands" -a monitor -d 'Start a client and print every change'
complete -c orientationctl -n "not __fish_seen_subcommand_from $commands" -a lock -d 'Lock the rotation'
complete -c orientationctl -n "not __fish_seen_subcommand_from $commands" -a unlock -d 'Unlock the rotation'
complete -c orientationctl -n "not __fish_seen_subcommand_from $commands" -a replay -d 'Run the orientation engine over a trace'
complete -c orientationctl -n "not __fish_seen_subcommand_from $commands" -a record -d 'Capture the sensor as a replay trace'
complete -c orientationctl -n "__fish_seen_subcommand_from get monitor" -l json -d 'JSON output'
complete -c orientationctl -n "__fish_seen_subcommand_from monitor" -l supported -x -a "$orientations" -d 'Orientations the client supports (comma-separated)'
complete -c orientationctl -n "__fish_seen_subcommand_from monitor" -l preferred -x -a "$orientations" -d 'Preferred orientation'
complete -c orientationctl -n "__fish_seen_subcommand_from monitor" -l no-follow-lock -d 'See the device orientation while locked'
complete -c orientationctl -n "__fish_seen_subcommand_from lock" -l toggle -d 'Lock if unlocked, unlock if locked'
complete -c orientationctl -n "__fish_seen_subcommand_from replay" -l config -r -F -d 'Configuration file'
complete -c orientationctl -n "__fish_seen_subcommand_from replay" -l explain -d 'Explain each decision'
complete -c orientationctl -n "__fish_seen_subcommand_from replay" -l explain-all -d 'Explain every sample'
complete -c orientationctl -n "__fish_seen_subcommand_from replay" -F
complete -c orientationctl -n "__fish_seen_subcommand_from record" -l seconds -x -d 'How long to record'
complete -c orientationctl -n "__fish_seen_subcommand_from record" -l output -r -F -d 'Trace file'
